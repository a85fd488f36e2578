#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks the docs against the engine, so that no feature, option or model lands undocumented or stays documented
after it is gone. Reads what `print_table` (tests/docs/print_table.cpp) prints of the engine:
  - docs/features.md, section "## Every extractor": one table row per extractor of the feature table,
    "| `NAME` | computed ... |" for the extractors vmafx computes and "| `NAME` | not computed ... |" for libvmaf's
    others; a computed extractor's row names every option in backticks, those accepted at their default only as
    "`OPTION` (default only)"; no row for an extractor the table lacks;
  - docs/cli.md, section "### Built-in models": one row "| `NAME` |" per built-in model, none for another name.
Prints every discrepancy and exits 1 if there is any.
Usage: check_docs.py PRINT_TABLE SOURCE_ROOT | check_docs.py --self-test"""
import os
import re
import subprocess
import sys
import tempfile

ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*([^|]*)\|(.*)$")


def section_rows(path, heading):
    """{name: (status cell, rest of the row)} of the table rows under `heading` (up to the next heading)."""
    rows, inside, dupes = {}, False, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip() == heading
                continue
            m = ROW.match(line.strip()) if inside else None
            if m:
                name = m.group(1)
                if name in rows:
                    dupes.append(name)
                rows[name] = (m.group(2).strip(), m.group(3))
    return rows, dupes


def parse_listing(text):
    features, options, models = {}, {}, []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "feature":
            features[parts[1]] = parts[2]
        elif parts[0] == "option":
            options.setdefault(parts[1], []).append((parts[2], parts[3]))
        elif parts[0] == "model":
            models.append(parts[1])
    return features, options, models


def check(listing, root):
    features, options, models = parse_listing(listing)
    errors = []
    fdoc = os.path.join(root, "docs", "features.md")
    rows, dupes = section_rows(fdoc, "## Every extractor")
    if not rows:
        errors.append("docs/features.md: no '## Every extractor' table")
    for d in dupes:
        errors.append("docs/features.md: extractor `%s` has two rows" % d)
    for name, state in features.items():
        if name not in rows:
            errors.append("docs/features.md: extractor `%s` (%s) has no row in '## Every extractor'" % (name, state))
            continue
        status, rest = rows[name]
        if state == "computed":
            if not status.startswith("computed"):
                errors.append("docs/features.md: `%s` is computed, its row says '%s'" % (name, status))
            for opt, how in options.get(name, []):
                if "`%s`" % opt not in rest:
                    errors.append("docs/features.md: option `%s` of `%s` is not in its row" % (opt, name))
                elif how == "refused" and "`%s` (default only)" % opt not in rest:
                    errors.append("docs/features.md: option `%s` of `%s` is taken at its default only: write "
                                  "'`%s` (default only)'" % (opt, name, opt))
                elif how == "honoured" and "`%s` (default only)" % opt in rest:
                    errors.append("docs/features.md: option `%s` of `%s` is honoured, not default only" % (opt, name))
        elif not status.startswith("not computed"):
            errors.append("docs/features.md: `%s` is libvmaf's only (not computed), its row says '%s'" % (name, status))
    for name in rows:
        if name not in features:
            errors.append("docs/features.md: row `%s` names no extractor of the feature table" % name)
    cdoc = os.path.join(root, "docs", "cli.md")
    mrows, mdupes = section_rows(cdoc, "### Built-in models")
    if not mrows:
        errors.append("docs/cli.md: no '### Built-in models' table")
    for d in mdupes:
        errors.append("docs/cli.md: model `%s` has two rows" % d)
    for m in models:
        if m not in mrows:
            errors.append("docs/cli.md: built-in model `%s` has no row in '### Built-in models'" % m)
    for m in mrows:
        if m not in models:
            errors.append("docs/cli.md: row `%s` is not a built-in model" % m)
    return errors


def self_test():
    """A complete pair of docs passes; each planted fault is reported."""
    listing = ("feature a computed\noption a x honoured\noption a y refused\nfeature b libvmaf-only\n"
               "model m1\nmodel m2\n")
    good_features = ("# F\n\n## Every extractor\n\n| extractor | status | options |\n|---|---|---|\n"
                     "| `a` | computed | `x`, `y` (default only) |\n| `b` | not computed | |\n\n## Other\n| `z` | x |\n")
    good_cli = "# C\n\n### Built-in models\n\n| model | checked |\n|---|---|\n| `m1` | x |\n| `m2` | y |\n"
    cases = [
        (good_features, good_cli, 0, ""),
        (good_features.replace("| `b` | not computed | |\n", ""), good_cli, 1, "`b` (libvmaf-only) has no row"),
        (good_features.replace("| `b` | not computed", "| `b` | computed"), good_cli, 1, "libvmaf's only"),
        (good_features.replace("`x`, ", ""), good_cli, 1, "option `x` of `a` is not in its row"),
        (good_features.replace(" (default only)", ""), good_cli, 1, "taken at its default only"),
        (good_features.replace("| `a` | computed", "| `a` | not computed"), good_cli, 1, "`a` is computed"),
        (good_features + "", good_cli.replace("| `m2` | y |\n", ""), 1, "`m2` has no row"),
        (good_features.replace("| `b` | not computed | |\n", "| `b` | not computed | |\n| `c` | computed | |\n"),
         good_cli, 1, "row `c` names no extractor"),
    ]
    ok = True
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, "docs"))
        for features_md, cli_md, want, needle in cases:
            open(os.path.join(t, "docs", "features.md"), "w").write(features_md)
            open(os.path.join(t, "docs", "cli.md"), "w").write(cli_md)
            errors = check(listing, t)
            if (len(errors) != want) or (needle and not any(needle in e for e in errors)):
                print("self-test case failed: expected %d error(s) with '%s', got %s" % (want, needle, errors))
                ok = False
    print("self-test: planted faults found" if ok else "self-test FAILED")
    return 0 if ok else 1


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    listing = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    errors = check(listing, sys.argv[2])
    features, options, models = parse_listing(listing)
    for e in errors:
        print(e)
    print("%d extractors (%d computed), %d options, %d built-in models checked: %d problem(s)" % (
        len(features), sum(1 for s in features.values() if s == "computed"), sum(len(v) for v in options.values()),
        len(models), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
