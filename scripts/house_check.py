#!/usr/bin/env python3
"""The house bars of issue 18, checked on the source tree (host only, no build needed).

Fails (exit 1, one line per violation) when
  1. a file under src/runtime/ includes a header under src/kernels/ (the runtime knows no op);
  2. a .cu, .cuh, .cpp or .hpp file under src/ is longer than 600 lines;
  3. a function in such a file is longer than 200 lines;
  4. a file under docs/notes/ that is not under docs/notes/history/ is longer than 400 lines.

Known violations that another change is removing are listed in ALLOWED (file, bar); an allowed
violation prints as "allowed" and does not fail the check, and an ALLOWED entry that no longer
matches anything fails it, so the list is emptied as the fixes land.

Function length (bar 3) is measured by a brace-matching heuristic, not a C++ parser:
  * comments, string and character literals are blanked first (raw strings R"(...)" included);
    preprocessor lines are ignored;
  * a function body is a '{' at namespace scope (outside any function, class, struct, union or
    enum body) whose preceding text, back to the last ';', '}' or '{', ends in ')' optionally
    followed by qualifiers (const, noexcept, override, final, trailing return type, attributes,
    ->, a constructor's initialiser list); 'namespace', 'extern "C"', class-like and '='
    (aggregate / lambda initialisers) headers are not functions;
  * member functions defined inside a class body (at any class nesting) are functions too;
    lambdas and local classes inside a function count towards their enclosing function;
  * a class head is recognised by class/struct/union/enum with no '(' after it, so a function
    returning `struct X` by its elaborated name is taken for a class (none in src/ today);
  * a function's length is the number of lines from its header line (the line of the name) to
    its closing brace, both included;
  * macros that open or close braces unevenly (none in src/ today) would confuse the matching.
"""

import argparse
import os
import re
import sys

MAX_SOURCE_LINES = 600
MAX_FUNCTION_LINES = 200
MAX_NOTE_LINES = 400
SOURCE_EXTENSIONS = (".cu", ".cuh", ".cpp", ".hpp")

# (path relative to the repository root, bar) pairs tolerated for now; an entry that no longer
# fails makes the check fail, so the list can only shrink. Empty: every bar holds.
ALLOWED: set = set()

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
CLASS_HEAD_RE = re.compile(r"\b(class|struct|union|enum)\b[^()]*$")
# (string literals are blanked before matching: extern "C" reads extern " ")
NAMESPACE_HEAD_RE = re.compile(r'\bnamespace\b|\bextern\s*"[^"]*"\s*$')
# Text allowed between a parameter list's ')' and the body's '{'.
TAIL_RE = re.compile(
    r"\)\s*(?:(?:const|volatile|noexcept(?:\s*\([^()]*\))?|override|final|mutable|&&?|"
    r"__[a-z_]+__(?:\s*\([^()]*\))?|\[\[[^\]]*\]\]|->\s*[\w:<>,\s*&]+)\s*)*"
    r"(?::\s*[\s\S]*)?$"
)


def line_count(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def blank_comments_and_strings(text):
    """Replaces comments, string and char literals and preprocessor lines by spaces (newlines
    kept), so braces inside them are not counted."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#" or (at_line_start and c in " \t" and
                                          text[i:].lstrip(" \t").startswith("#")):
            # A preprocessor line (with backslash continuations).
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        m = re.match(r'R"([^(\s]*)\(', text[i:i + 20]) if c == "R" else None
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()):
                out.append(c)  # digit separator (1'000) or a suffix, not a literal
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " " * (j - i))
            i = j
            continue
        out.append(c)
        at_line_start = c == "\n" or (at_line_start and c in " \t")
        i += 1
    return "".join(out)


def is_function_head(head):
    """Whether the text before a namespace-scope '{' is a function's header."""
    h = head.strip()
    if not h or "=" in h.split(")")[-1] or h.endswith("="):
        return False
    if NAMESPACE_HEAD_RE.search(h) or CLASS_HEAD_RE.search(h):
        return False
    if ")" not in h:
        return False
    # The parameter list's ')' is the last ')' that is followed only by qualifiers or an
    # initialiser list; try each ')' from the right.
    for k in range(len(h) - 1, -1, -1):
        if h[k] == ")" and TAIL_RE.match(h[k:]):
            return True
    return False


def long_functions(path, limit):
    """(name line, length) of each namespace-scope function body longer than limit lines."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank_comments_and_strings(f.read())
    found = []
    # Stack of open braces: (kind, start line) with kind "scope" (namespace, extern "C"),
    # "class" (class, struct, union, enum bodies: their member functions are counted one by
    # one), "function", or "other" (initialisers, blocks inside functions).
    stack = []
    last_stop = 0  # index just after the last ';', '{' or '}' seen at namespace scope
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            at_namespace_scope = all(kind in ("scope", "class") for kind, _ in stack)
            if at_namespace_scope:
                head = text[last_stop:i]
                if CLASS_HEAD_RE.search(head.strip()):
                    stack.append(("class", line))
                elif is_function_head(head):
                    lead = len(head) - len(head.lstrip())
                    start = line - head[lead:].count("\n")
                    stack.append(("function", start))
                elif NAMESPACE_HEAD_RE.search(head.strip()) or not head.strip():
                    stack.append(("scope" if head.strip() else "other", line))
                else:
                    stack.append(("other", line))
            else:
                stack.append(("other", line))
            last_stop = i + 1
        elif c == "}":
            if stack:
                kind, start = stack.pop()
                if kind == "function" and line - start + 1 > limit:
                    found.append((start, line - start + 1))
            last_stop = i + 1
        elif c == ";" and all(kind in ("scope", "class") for kind, _ in stack):
            last_stop = i + 1
    return found


def source_files(root):
    for base, dirs, files in os.walk(os.path.join(root, "src")):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_EXTENSIONS):
                yield os.path.join(base, name)


def check(root):
    violations = []  # (relative path, bar, message)

    def rel(p):
        return os.path.relpath(p, root).replace(os.sep, "/")

    for path in source_files(root):
        r = rel(path)
        if r.startswith("src/runtime/"):
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, text in enumerate(f, 1):
                    m = INCLUDE_RE.match(text)
                    if m and m.group(1).startswith("kernels/"):
                        violations.append((r, "include", f"{r}:{no}: includes {m.group(1)}: "
                                           "src/runtime may not include src/kernels"))
        n = line_count(path)
        if n > MAX_SOURCE_LINES:
            violations.append((r, "lines", f"{r}: {n} lines (at most {MAX_SOURCE_LINES})"))
        for start, length in long_functions(path, MAX_FUNCTION_LINES):
            violations.append((r, "function", f"{r}:{start}: function of {length} lines "
                               f"(at most {MAX_FUNCTION_LINES})"))

    notes = os.path.join(root, "docs", "notes")
    for base, dirs, files in os.walk(notes):
        dirs[:] = sorted(d for d in dirs if not (base == notes and d == "history"))
        for name in sorted(files):
            path = os.path.join(base, name)
            n = line_count(path)
            if n > MAX_NOTE_LINES:
                r = rel(path)
                violations.append((r, "notes", f"{r}: {n} lines (at most {MAX_NOTE_LINES} "
                                   "outside docs/notes/history/)"))
    return violations


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="repository root (default: this script's parent)")
    parser.add_argument("--strict", action="store_true",
                        help="ignore the ALLOWED list (what the bars say once every fix is in)")
    args = parser.parse_args()

    violations = check(args.root)
    allowed = set() if args.strict else ALLOWED
    failed = False
    seen = set()
    for r, bar, message in violations:
        if (r, bar) in allowed:
            seen.add((r, bar))
            print(f"allowed: {message}")
        else:
            failed = True
            print(f"error: {message}")
    for r, bar in sorted(allowed - seen):
        failed = True
        print(f"error: ALLOWED lists ({r}, {bar}) but it no longer fails: remove the entry")
    if not failed:
        print(f"house_check: ok ({len(violations)} allowed)" if violations else "house_check: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
