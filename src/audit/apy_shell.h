/* apy_shell: subprocesses: the output redirections of their shell text, and whether the
 * Python they start may write bytecode (the environment lost PYTHONDONTWRITEBYTECODE). */
#ifndef TESTFENCE_APY_SHELL_H
#define TESTFENCE_APY_SHELL_H

#include "apy_node.h"

/* subprocess, os.system and pytester calls: their redirections and bytecode. */
void apy_on_subprocess(apy *P, uint32_t call, const char *name);

/* Is A the literal name of a bytecode setting (PYTHONDONTWRITEBYTECODE, PYTHONPYCACHEPREFIX)? */
bool apy_is_bytecode_var(apy *P, uint32_t a);

/* DICT lost the bytecode settings (os.environ: the process environment). */
void apy_strip_env(apy *P, uint32_t dict);

/* monkeypatch.setenv("HOME", ...) (or XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, ...): this
 * function's HOME (or git's configuration) is elsewhere; setting PYTHONDONTWRITEBYTECODE
 * again undoes its removal. */
void apy_on_setenv(apy *P, uint32_t call, const char *name);

/* env.pop("PYTHONDONTWRITEBYTECODE"), monkeypatch.delenv(...): remember it; env.update(HOME=x)
 * and os.environ.update(...) redirect what they name. */
void apy_on_env_removal(apy *P, uint32_t call, uint32_t fn, const char *name);

/* The TF_SH_ENV_* variables a subprocess call's env= redirects (0: none, or no env=). */
unsigned apy_env_bits(apy *P, uint32_t args);

/* TARGET = VALUE where VALUE is an environment dict (dict(os.environ, HOME=x), {...}). */
void apy_on_env_value(apy *P, uint32_t target, uint32_t value);

/* env["HOME"] = x, os.environ["HOME"] = x (TARGET is the subscript). */
void apy_on_env_store(apy *P, uint32_t target);

#endif
