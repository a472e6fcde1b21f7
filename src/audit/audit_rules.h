/* audit_rules: the rule table of `testfence audit`, as data.
 * Codes, one-line summaries, explanations and fixes live here so every output format agrees. */
#ifndef TESTFENCE_AUDIT_RULES_H
#define TESTFENCE_AUDIT_RULES_H

#include <stdbool.h>

/* Rule ids, in table order (which is also code order). */
typedef enum tf_rule_id {
    TF_RULE_SYNTAX,    /* TF000 */
    TF_RULE_PROTECTED, /* TF101 */
    TF_RULE_CLIMB,     /* TF102 */
    TF_RULE_ABSOLUTE,  /* TF103 */
    TF_RULE_SYSTEMP,   /* TF104 */
    TF_RULE_ARTIFACTS, /* TF105 (style) */
    TF_RULE_RELATIVE,  /* TF106 */
    TF_RULE_PYCACHE,   /* TF107 */
    TF_RULE_GITCONFIG, /* TF108 */
    TF_RULE_SHELL,     /* TF109 */
    TF_RULE_DELETE,    /* TF110 */
    TF_RULE_TMP_PATH,  /* TF201 (style) */
    TF_RULE_COUNT
} tf_rule_id;

typedef struct tf_rule {
    const char *code;        /* "TF101" */
    const char *name;        /* kebab-case, stable: SARIF rule name */
    const char *summary;     /* one line, generic */
    const char *explanation; /* why it matters */
    const char *example;     /* code that triggers it */
    const char *fix;         /* what to write instead */
    bool style;              /* a style rule: off unless selected by name */
} tf_rule;

/* The rules on by default: every rule but the style rules. */
unsigned tf_rule_default_mask(void);

/* The rule with id ID (0 <= id < TF_RULE_COUNT). */
const tf_rule *tf_rule_get(tf_rule_id id);

/* Look a code up ("TF101", case-insensitive); -1 when unknown. */
int tf_rule_find(const char *code, unsigned long len);

/* Parse a comma/space separated code list ("TF101,TF104", or a prefix like
 * "TF1" selecting every code it starts) into a bit mask over rule ids.
 * Returns false on an unknown code, naming it in BAD (at least 32 bytes). */
bool tf_rule_parse_list(const char *list, unsigned *mask, char *bad, unsigned long badlen);

#endif
