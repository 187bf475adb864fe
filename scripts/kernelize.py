#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""kernelize.py FILE... - make upstream's second step on the protocol core
as laid into a kernel tree (the first is unifdef, which keeps only the
kernel's branches): rewrite each FILE in place so that it reads as kernel
code where checkpatch asks, and nothing else changes.

Contract:
 1. The C99 fixed-width types become the kernel's: uint8_t u8, int8_t s8,
    and so on for 16, 32 and 64 bits. The core keeps the C99 names in the
    repository because the same files compile for the AVR, Cortex-M and
    the Arduino IDE, where u8 is not a name the core may claim.
 2. "#include PHYLLO_TRACE_HEADER" becomes the kernel's hook,
    #include "phyllo_trace_hook.h" (the out-of-tree build names it with a
    -D flag; the tree has no such flag), and the portable suites'
    #include <string.h> becomes <linux/string.h> (out of tree, a shim
    directory on the include path stands in for it).
 3. A renamed type changes the column of what follows it on its line: a
    continuation line that was aligned with an open parenthesis is
    re-indented (tabs, then spaces) to stay aligned with it. Parentheses
    inside strings, character constants and comments are not counted.
 4. A comment that follows code on a line whose type was renamed keeps
    its column (spaces before its "/*"), so the lines it continues onto
    and the comments of the lines around it stay aligned.
 5. A run of blank lines (what unifdef leaves where it took a block out)
    becomes one blank line.
 6. Nothing else changes; a file that needs no change is left as it was.
"""
import re
import sys

TYPES = re.compile(r'\b(u?)int(8|16|32|64)_t\b')
TRACE = re.compile(r'^#include PHYLLO_TRACE_HEADER$', re.M)
STRING = re.compile(r'^#include <string\.h>$', re.M)


def width(text):
    """Columns of a run of leading whitespace, tabs to 8."""
    col = 0
    for ch in text:
        col = (col // 8 + 1) * 8 if ch == '\t' else col + 1
    return col


def scan(line, stack, in_comment):
    """One line's parentheses and comments: updates the stack of
    open-parenthesis columns, and returns whether a comment is still open
    at its end and where the first comment after code starts (its column
    and index), or None."""
    col, i, quote, code, start = 0, 0, None, False, None
    while i < len(line):
        ch = line[i]
        nxt = line[i + 1] if i + 1 < len(line) else ''
        if in_comment:
            if ch == '*' and nxt == '/':
                in_comment = False
                i += 1
                col += 1
        elif quote:
            if ch == '\\':
                i += 1
                col += 1
            elif ch == quote:
                quote = None
        elif ch == '/' and nxt == '*':
            if code and start is None:
                start = (col, i)
            in_comment = True
            i += 1
            col += 1
        elif ch == '/' and nxt == '/':
            break
        elif ch in '"\'':
            quote = ch
        elif ch == '(':
            stack.append(col)
        elif ch == ')' and stack:
            stack.pop()
        if not in_comment and not ch.isspace():
            code = True
        col = (col // 8 + 1) * 8 if ch == '\t' else col + 1
        i += 1
    return in_comment, start


def indent(cols):
    return '\t' * (cols // 8) + ' ' * (cols % 8)


def kernelize(text):
    out = []
    old_stack, new_stack = [], []
    old_c = new_c = False
    for line in text.split('\n'):
        new = TYPES.sub(lambda m: ('u' if m.group(1) else 's') + m.group(2), line)
        # (a comment that follows code keeps its column)
        old_cc = scan(line, list(old_stack), old_c)[1]
        new_cc = scan(new, list(new_stack), new_c)[1]
        if new != line and old_cc and new_cc and new_cc[0] < old_cc[0]:
            new = new[:new_cc[1]] + ' ' * (old_cc[0] - new_cc[0]) + new[new_cc[1]:]
        lead = re.match(r'[ \t]*', line).group(0)
        if (lead and line.strip() and old_stack and new_stack and
                width(lead) == old_stack[-1] + 1 and
                old_stack[-1] != new_stack[-1]):
            new = indent(new_stack[-1] + 1) + new[len(lead):]
        if not line.strip():
            old_stack, new_stack = [], []
        old_c = scan(line, old_stack, old_c)[0]
        new_c = scan(new, new_stack, new_c)[0]
        out.append(new)
    text = TRACE.sub('#include "phyllo_trace_hook.h"', '\n'.join(out))
    text = re.sub(r'\n\n\n+', '\n\n', text)
    return STRING.sub('#include <linux/string.h>', text)


def main():
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        new = kernelize(text)
        if new != text:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(new)


if __name__ == '__main__':
    main()
