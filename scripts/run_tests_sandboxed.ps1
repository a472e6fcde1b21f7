<#
.SYNOPSIS
    Run the test suite in Windows' own fence: a thin front end to `testfence.exe run`.

.DESCRIPTION
    The request's opt-in OS-level wrapper (FR5). Everything is done by `testfence.exe run`
    (docs/platforms.md): a write-restricted token whose per-run SID may write only the
    project's tests/ (and the run's own temp dir), a Job Object that kills every process of
    the run when it ends and lets none break away, the workspace under tests/artifacts/,
    TEMP and TMP redirected, the report. This script only finds the project root, goes there,
    and passes the command and the exit status through.

    On Linux and macOS it runs nothing: it says so and exits 0. Use `testfence run -- ...`
    there (Linux: Landlock; macOS: Seatbelt).

    -WhatIf is `testfence run --dry-run`: the plan is printed, nothing is created, no
    permission is changed, nothing is run.

.PARAMETER ProjectRoot
    The project to fence. Default: the directory above this script's (scripts\..).

.PARAMETER Testfence
    The testfence executable. Default: testfence.exe, found on PATH.

.PARAMETER Command
    The command to run, after `--`. Default: uv run python -m pytest.

.EXAMPLE
    scripts\run_tests_sandboxed.ps1
.EXAMPLE
    scripts\run_tests_sandboxed.ps1 -WhatIf
.EXAMPLE
    scripts\run_tests_sandboxed.ps1 -- uv run python scripts/run_tests_batched.py

.NOTES
    Exit status: the command's own; 120 it passed but writes were reported or processes it
    left were killed; 125 testfence could not fence (no project root, a config error, the
    fence cannot be set up); 126, 127 the command cannot be run or is not found.
#>
# No positional binding: every word after `--` is the command's, none is taken for a parameter.
[CmdletBinding(SupportsShouldProcess = $true, PositionalBinding = $false)]
param(
    [string]$ProjectRoot = (Split-Path -Parent $PSScriptRoot),
    [string]$Testfence = 'testfence.exe',
    [Parameter(ValueFromRemainingArguments = $true)]
    [string[]]$Command
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

# Windows PowerShell 5.1 has no $IsWindows: ask .NET.
if ([System.Environment]::OSVersion.Platform -ne [System.PlatformID]::Win32NT) {
    Write-Output ('run_tests_sandboxed.ps1: Windows only; nothing was run. On Linux and ' +
                  'macOS use: testfence run -- <command> (docs/platforms.md).')
    exit 0
}

if (-not (Get-Command -Name $Testfence -ErrorAction SilentlyContinue)) {
    [Console]::Error.WriteLine("run_tests_sandboxed.ps1: $Testfence not found (put it on PATH, " +
                               'or pass -Testfence); nothing was run.')
    exit 125
}

if (-not $Command -or $Command.Count -eq 0) {
    $Command = @('uv', 'run', 'python', '-m', 'pytest')
}

$fenceArgs = @('run', '--root', $ProjectRoot)
if ($WhatIfPreference) {
    $fenceArgs += '--dry-run'
}
$fenceArgs += '--'
$fenceArgs += $Command

Push-Location -LiteralPath $ProjectRoot
try {
    & $Testfence @fenceArgs
    $status = $LASTEXITCODE
} finally {
    Pop-Location
}
exit $status
