#!/usr/bin/env python3
"""tests/doc/prefixes.py -- every extern function's name says where it is
defined (style.md section 2.3; issue 32)

The rule, which a newcomer uses to find a definition by its name: a
function defined without 'static' in vm/**/*.c, parser/ (its .c files,
and lexer.l and parser.y instead of the C files flex and bison make from
them), stdlib/ or cli/ is named

  vl_W_...   where W is the stem of the file that defines it
             (vl_contseg_make in vm/core/contseg.c), or the name of the
             folder that holds that file, for a module of several files
             in a folder of its own (vl_cpj_install_first in
             vm/cpj/cpjfirst.c);
  vlad_...   the public API (include/vlad.h), in vm/api/ only;
  main       in cli/main.c only;
  yy...      in lexer.l and parser.y only: the hooks flex and bison
             call by those names (yyalloc, yyfree, ...).

So vl_W_name is in a file W.c, or in the folder W/: one place to look.
File stems are unique across the tree (style.md 2.2), and have no '_',
so W is the text between the first and the second '_'.
Prints "N passed, N failed" (one check per function); exit status 1 when
a check fails.
"""
import os
import re

from csource import DEFINITION, Tally, strip

srcdir = os.environ.get('srcdir', '.')
tally = Tally()
ok, bad = tally.ok, tally.bad


def sources():
    """Every source file the rule covers, as paths from the top."""
    out = []
    for top in ('vm', 'parser', 'stdlib', 'cli'):
        for d, subdirs, names in os.walk(os.path.join(srcdir, top)):
            subdirs.sort()
            made = {n[:-2] for n in names if re.fullmatch(r'\w+\.[ly]', n)}
            for n in sorted(names):
                if re.fullmatch(r'\w+\.[ly]', n) or (
                        re.fullmatch(r'\w+\.c', n) and n[:-2] not in made):
                    out.append(os.path.relpath(os.path.join(d, n), srcdir))
    return out


files = sources()
definitions = 0
for f in files:
    stem = re.sub(r'\.\w+$', '', os.path.basename(f))
    folder = os.path.basename(os.path.dirname(f))
    code = strip(open(os.path.join(srcdir, f)).read())
    for m in DEFINITION.finditer(code):
        name = m.group(1)
        definitions += 1
        w = name.split('_')[1] if name.count('_') >= 2 else None
        if name.startswith('vlad_'):
            if f.startswith('vm/api/'):
                ok()
            else:
                bad('%s defines %s: vlad_ names are the public API, '
                    'defined in vm/api/' % (f, name))
        elif name.startswith('yy') and f.endswith(('.l', '.y')):
            ok()
        elif name == 'main':
            if f == 'cli/main.c':
                ok()
            else:
                bad('%s defines main' % f)
        elif name.startswith('vl_') and w in (stem, folder):
            ok()
        else:
            bad('%s defines %s: an extern function of %s is named vl_%s_... '
                '(or vl_%s_...)' % (f, name, f, stem, folder))

# the rule holds of something: the scan finds the definitions
if definitions >= 300:
    ok()
else:
    bad('only %d extern functions found in %d files' % (definitions,
                                                         len(files)))

tally.done()
