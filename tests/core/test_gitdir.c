/* test_gitdir: a gitfile read as git reads it, and the walk up to the nearest repository: a
 * .git directory, a gitfile (a worktree's), and whatever a test could plant in the writable set
 * (a .git, a gitfile naming another repository, a symlink on the way) passed over. */
#include "check.h"

#include "core/gitdir.h"
#include "core/policy.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static const char *at(const char *rel)
{
    static char p[4][PATH_MAX];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", base, rel);
    return p[i];
}

static void write_file(const char *rel, const char *text)
{
    FILE *f = fopen(at(rel), "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A git directory: what gitdir_find asks of one is its HEAD. */
static void make_repo(const char *rel)
{
    char head[PATH_MAX];
    mkdir(at(rel), 0755);
    snprintf(head, sizeof head, "%s/HEAD", rel);
    write_file(head, "ref: refs/heads/main\n");
}

static void parse(void)
{
    char out[PATH_MAX];
    tf_err err = {0};
    static const char abs[] = "gitdir: /r/.git/worktrees/wt\n";
    CHECK(gitdir_parse_file(abs, sizeof abs - 1, "/w", out, sizeof out, &err) == 0);
    CHECK_STR(out, "/r/.git/worktrees/wt");
    static const char rel[] = "gitdir: ../.git/modules/pkg\r\n";
    CHECK(gitdir_parse_file(rel, sizeof rel - 1, "/r/pkg", out, sizeof out, &err) == 0);
    CHECK_STR(out, "/r/pkg/../.git/modules/pkg"); /* resolved by the caller */
    static const char bare[] = "gitdir: /x";      /* no line end */
    CHECK(gitdir_parse_file(bare, sizeof bare - 1, "/w", out, sizeof out, &err) == 0);
    CHECK_STR(out, "/x");
    static const char *const bad[] = {"gitdir: \n", "gitdir:/x\n", "nope\n", "gitdir: a\nb\n", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(gitdir_parse_file(bad[i], strlen(bad[i]), "/w", out, sizeof out, &err) < 0);
    static const char nul[] = "gitdir: /a\0/b\n";
    CHECK(gitdir_parse_file(nul, sizeof nul - 1, "/w", out, sizeof out, &err) < 0);
    CHECK(gitdir_parse_file(abs, sizeof abs - 1, "/w", out, 5, &err) < 0); /* does not fit */
}

/* FROM's repository is WANT ("" for none). */
static void expect(const struct policy *p, const char *from, const char *want)
{
    char out[PATH_MAX] = "";
    int rc = gitdir_find(p, at(from), out, sizeof out);
    if (!want[0]) {
        CHECK(rc == 0);
        return;
    }
    CHECK(rc == 1);
    CHECK_STR(out, at(want));
}

/* base/.git, the outermost repository: a walk that passes everything over ends there. The
 * project is base/top/pkg (tests/ writable), in the repository base/top. */
static void layout(void)
{
    make_repo(".git");
    mkdir(at("top"), 0755);
    make_repo("top/.git");
    mkdir(at("top/.git/worktrees"), 0755);
    make_repo("top/.git/worktrees/wt");
    mkdir(at("top/pkg"), 0755);
    mkdir(at("top/pkg/src"), 0755);
    mkdir(at("top/pkg/tests"), 0755);
    mkdir(at("top/pkg/tests/sub"), 0755);
    mkdir(at("other"), 0755);
    make_repo("other/.git");
}

static void walk_up(const struct policy *p)
{
    expect(p, "top/pkg", "top/.git"); /* a monorepo: the repository is the root's parent */
    expect(p, "top/pkg/src", "top/.git");
    expect(p, "top", "top/.git");
    expect(p, "other", "other/.git");
    /* A worktree: its .git is a gitfile, relative to where it is. */
    mkdir(at("wt"), 0755);
    mkdir(at("wt/pkg"), 0755);
    write_file("wt/.git", "gitdir: top/.git/worktrees/wt\n"); /* wrong: relative to wt/ */
    expect(p, "wt/pkg", ".git");                              /* names nothing: passed over */
    write_file("wt/.git", "gitdir: ../top/.git/worktrees/wt\n");
    expect(p, "wt/pkg", "top/.git/worktrees/wt");
    /* A .git without HEAD is no repository: git goes on up, and so does the walk. */
    mkdir(at("top/pkg/.git"), 0755);
    expect(p, "top/pkg/src", "top/.git");
    rmdir(at("top/pkg/.git"));
    /* A fifo named .git: passed over, not waited on. */
    CHECK(mkfifo(at("top/pkg/.git"), 0644) == 0);
    expect(p, "top/pkg/src", "top/.git");
    unlink(at("top/pkg/.git"));
    /* A .git that is a symlink the user made, outside the writable set: followed. */
    mkdir(at("linked"), 0755);
    CHECK(symlink(at("other/.git"), at("linked/.git")) == 0);
    expect(p, "linked", "other/.git");
    /* A dangling one: there is a .git (lstat finds it), leading nowhere: passed over. */
    mkdir(at("dangling"), 0755);
    CHECK(symlink(at("nowhere/.git"), at("dangling/.git")) == 0);
    expect(p, "dangling", ".git");
}

/* What a test can write (the writable set: tests/) never decides. */
static void planted(const struct policy *p)
{
    /* A repository made under tests/: git there writes where it may anyway. */
    make_repo("top/pkg/tests/.git");
    expect(p, "top/pkg/tests/sub", "top/.git");
    /* A gitfile under tests/ naming another repository outside. */
    char text[PATH_MAX + 16];
    snprintf(text, sizeof text, "gitdir: %s\n", at("other/.git"));
    write_file("top/pkg/tests/sub/.git", text);
    expect(p, "top/pkg/tests/sub", "top/.git");
    /* The user's gitfile (outside), leading through a symlink a test planted under tests/. */
    CHECK(symlink(at("other"), at("top/pkg/tests/link")) == 0);
    mkdir(at("lone"), 0755);
    snprintf(text, sizeof text, "gitdir: %s\n", at("top/pkg/tests/link/.git"));
    write_file("lone/.git", text);
    expect(p, "lone", ".git");
    /* ...or naming a git directory inside the writable set: nothing to keep quiet there. */
    snprintf(text, sizeof text, "gitdir: %s\n", at("top/pkg/tests/.git"));
    write_file("lone/.git", text);
    expect(p, "lone", ".git");
    /* The user's .git symlink, through a symlink a test planted. */
    mkdir(at("lone3"), 0755);
    CHECK(symlink(at("top/pkg/tests/link/.git"), at("lone3/.git")) == 0);
    expect(p, "lone3", ".git");
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/tf-gitdir-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(buf) || !realpath(buf, base))
        return perror("mkdtemp"), 1;
    parse();
    layout();
    struct policy p;
    tf_err err = {0};
    CHECK(policy_init(&p, at("top/pkg"), &err) == 0);
    CHECK(policy_add(&p, "tests", POLICY_PROJECT, &err) == 0);
    walk_up(&p);
    planted(&p);
    CHECK(gitdir_find(&p, "relative", buf, sizeof buf) == 0);
    policy_free(&p);

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_gitdir");
}
