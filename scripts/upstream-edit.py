#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""upstream-edit.py EDIT FILE [ARG...] - the edits make upstream's series
makes to files of the kernel tree (scripts/upstream-layout.sh), each
in place, each failing loudly when the tree is not as expected:

  tty FILE                 include/uapi/linux/tty.h: N_PHYLLO after the
                           newest line discipline, NR_LDISCS one more
  ioctl FILE MAGIC LAST    ioctl-number.rst: the row of linux/phyllo.h,
                           sequence numbers 01 to LAST, in code order
  maintainers FILE ENTRY PATH...
                           MAINTAINERS: the entry of file ENTRY (its
                           non-comment lines) with an F: line per PATH,
                           in title order
  toctree FILE after:ENTRY NAME | sorted:ENTRY NAME
                           an index.rst: NAME into the toctree holding
                           ENTRY, after it or in name order
"""
import re
import sys


def fail(msg):
    sys.exit('upstream-edit: ' + msg)


def tty(lines):
    defs = [(i, m) for i, l in enumerate(lines)
            for m in [re.match(r'#define (N_[A-Z0-9_]+)\t+(\d+)\t', l)] if m]
    nr = [i for i, l in enumerate(lines) if re.match(r'#define NR_LDISCS\t+\d+$', l)]
    if not defs or len(nr) != 1:
        fail('tty.h: no line disciplines or no NR_LDISCS')
    i, last = defs[-1]
    num = int(last.group(2)) + 1
    if int(lines[nr[0]].split()[-1]) != num:
        fail('tty.h: NR_LDISCS is not the newest line discipline + 1')
    lines.insert(i + 1, '#define N_PHYLLO\t%d\t/* Phyllo serial protocol */' % num)
    lines[nr[0] + 1] = '#define NR_LDISCS\t%d' % (num + 1)


def ioctl(lines, magic, last):
    magic, last = int(magic, 16), int(last)
    ruler = next(l for l in lines if l.startswith('====  ====='))
    cols = [i for i in range(1, len(ruler)) if ruler[i] == '=' and ruler[i - 1] == ' ']
    code = '0x%02X' % magic
    if any(l[:4].upper() == code.upper() for l in lines):
        fail('ioctl magic %s is taken' % code)
    at = next(i for i, l in enumerate(lines)
              if re.match(r'0x[0-9A-Fa-f]{2} ', l) and int(l[:4], 16) > magic)
    row = code.ljust(cols[0]) + ('01-%02X' % last).ljust(cols[1] - cols[0])
    row += 'linux/phyllo.h'.ljust(cols[2] - cols[1]) + 'Phyllo serial line discipline'
    lines.insert(at, row)


def maintainers(lines, entry_file, *paths):
    with open(entry_file, encoding='utf-8') as f:
        entry = [l for l in f.read().split('\n') if l and not l.startswith('#')]
    entry += ['F:\t' + p for p in sorted(paths)]
    end = lines.index('THE REST')
    titles = [i for i in range(1, end) if lines[i - 1] == '' and lines[i] and
              lines[i + 1][1:3] == ':\t']
    # The titles are sorted without case, mostly: the entry goes between
    # the first pair of neighbours that brackets it.
    key = entry[0].upper()
    at = next(b for a, b in zip(titles, titles[1:])
              if lines[a].upper() < key < lines[b].upper())
    lines[at:at] = entry + ['']


def toctree(lines, where, name):
    how, entry = where.split(':', 1)
    hits = [k for k, l in enumerate(lines) if l == '   ' + entry]
    if len(hits) != 1:
        fail('toctree: no one entry %s' % entry)
    at = hits[0] + 1
    if how == 'sorted':
        # the toctree's run of entries around it, the name in order there
        lo = hits[0]
        while lines[lo - 1].startswith('   ') and not lines[lo - 1].startswith('   :'):
            lo -= 1
        hi = hits[0]
        while hi + 1 < len(lines) and lines[hi + 1].startswith('   '):
            hi += 1
        at = next((k for k in range(lo, hi + 1) if lines[k].strip() > name), hi + 1)
    elif how != 'after':
        fail('toctree: after:ENTRY or sorted:ENTRY')
    lines.insert(at, '   ' + name)


def main():
    edit, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    {'tty': tty, 'ioctl': ioctl, 'maintainers': maintainers,
     'toctree': toctree}[edit](lines, *args)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines))


if __name__ == '__main__':
    main()
