#!/usr/bin/env python3
"""tests/doc/layers.py -- vm/ is built in folders and floors, and
doc/internals.md's map of them is true; parser/ and cli/ have no include
circle either

vm/ is a few folders, each a layer (doc/internals.md's table "| layer |
folder | ...").  A module of vm/ is a file FOLDER/x.c with its header
FOLDER/x.h (or a header alone);
so is one of parser/ and of cli/.  parser/'s reader is one module of
four files: read.c drives the lexer (lexer.l) and the grammar
(parser.y), which report into it, all through the Reader of scanner.h;
it is split only because flex and bison each make a file of their own
(those made files are left out: the .l and .y are read instead).
Module A depends on module B when one of A's files includes one of B's
headers, or names a function B's .c defines (not static; a header's
prototype of it is no use of it) or a static
inline function or macro B's header defines (a macro defined in two
places, or undefined somewhere, is an X-macro's parameter, not a
definition).  Checked:
  - no module is in a circle: no two modules depend on each other,
    directly or through others (in vm/, parser/ and cli/, each on its
    own: parser/ and cli/ see vm/ only through include/vlad.h);
  - doc/internals.md's table of floors ("| floor | files | ...") lists
    every file of vm/ once, and every dependency goes to a lower floor;
  - its table of layers lists every folder of vm/ once; a module depends
    only on modules of its own folder or of folders on lower layers, and
    the floors of a folder all lie above those of the folders below it
    (the table of floors reads folder by folder, bottom up);
  - every folder has a README.md and at most 16 C sources.
With -v, prints each module's computed floor and what it depends on
(cli/'s order is the one doc/internals.md section 2 gives).
Prints "N passed, N failed"; exit status 1 when a check fails.
"""
import os
import re
import sys

from csource import DEFINITION, Tally, strip

srcdir = os.environ.get('srcdir', '.')
vm = os.path.join(srcdir, 'vm')
doc = os.path.join(srcdir, 'doc', 'internals.md')
verbose = '-v' in sys.argv
tally = Tally()
ok, bad = tally.ok, tally.bad


def graph(top, files, group={}):
    """The modules of 'files' (paths under 'top', which '#include "TOP/..."'
    names; 'group' maps a file's stem to the module it is part of) and
    what each depends on: {module: {module: reasons}}."""
    src = {f: open(os.path.join(srcdir, top, f)).read() for f in files}
    code = {f: strip(src[f]) for f in files}
    module = {}
    for f in files:
        stem = re.sub(r'\.\w+$', '', f)
        module[f] = group.get(stem, stem)
    modules = sorted(set(module.values()))
    defs, multi = {}, set()

    def define(name, f):
        if name in defs and defs[name] != module[f]:
            multi.add(name)
        defs.setdefault(name, module[f])

    for f in files:
        c = code[f]
        if not f.endswith('.h'):
            for m in DEFINITION.finditer(c):
                define(m.group(1), f)
        else:
            for m in re.finditer(r'static\s+inline\s+[\w\s*]*?\b(\w+)\s*'
                                 r'\([^;{}]*\)\s*\{', c):
                define(m.group(1), f)
        for name in re.findall(r'#\s*define\s+(\w+)', c):
            define(name, f)
        multi.update(re.findall(r'#\s*undef\s+(\w+)', c))

    deps = {m: {} for m in modules}
    for f in files:
        a = module[f]
        for inc in re.findall(r'#include "%s/([\w/]+\.h)"' % top, src[f]):
            if inc not in module:
                bad('%s/%s includes %s/%s, which does not exist'
                    % (top, f, top, inc))
            elif module[inc] != a:
                deps[a].setdefault(module[inc], set()).add('#include')
        # a header's prototype declares its function, it does not use it:
        # an interface header (vm/cpj/cpj.h) declares functions of several
        # modules
        declared = set(re.findall(r'VL_INTERNAL[^;{}(]*?\b(\w+)\s*\(',
                                  code[f])) if f.endswith('.h') else set()
        for name in set(re.findall(r'\b[A-Za-z_]\w*\b', code[f])) - declared:
            b = defs.get(name)
            if b is not None and b != a and name not in multi:
                deps[a].setdefault(b, set()).add(name)
    return src, module, modules, deps


def circles(top, modules, deps):
    """The strongly connected sets of modules (Tarjan, iterative), sinks
    first; each set of more than one fails."""
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(deps[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                sccs.append(sorted(comp))

    for comp in sccs:
        if len(comp) == 1:
            ok()
            continue
        lines = []
        for a in comp:
            for b in comp:
                if b in deps[a]:
                    why = sorted(deps[a][b])
                    lines.append('    %s/%s -> %s/%s: %s'
                                 % (top, a, top, b, ' '.join(why[:6])))
        bad('modules of %s/ in a circle: %s\n%s'
            % (top, ' '.join(comp), '\n'.join(lines)))

    # the computed floors (longest path down), for -v
    floor = {}
    for comp in sccs:                       # Tarjan emits sinks first
        lv = 0
        for v in comp:
            for w in deps[v]:
                if w in floor and w not in comp:
                    lv = max(lv, floor[w] + 1)
        for v in comp:
            floor[v] = lv
    if verbose:
        for m in sorted(modules, key=lambda m: (floor[m], m)):
            print('%s/ floor %2d %-10s -> %s' % (top, floor[m], m,
                                               ' '.join(sorted(deps[m]))))


def flat(top):
    """The sources of the flat folder 'top': its .c and .h files, and its
    .l and .y files instead of the C files made from them."""
    names = os.listdir(os.path.join(srcdir, top))
    made = {n[:-2] for n in names if re.fullmatch(r'\w+\.[ly]', n)}
    return sorted(n for n in names if re.fullmatch(r'\w+\.[chly]', n)
                  and not (n.endswith(('.c', '.h')) and n[:-2] in made))


folders = sorted(d for d in os.listdir(vm) if not d.startswith('.')
                 and os.path.isdir(os.path.join(vm, d)))
files = sorted(d + '/' + f for d in folders
               for f in os.listdir(os.path.join(vm, d))
               if re.fullmatch(r'\w+\.[ch]', f))
src, module, modules, deps = graph('vm', files)
circles('vm', modules, deps)
reader = {'lexer': 'read', 'parser': 'read', 'scanner': 'read'}
for top, group in (('parser', reader), ('cli', {})):
    g = graph(top, flat(top), group)
    circles(top, g[2], g[3])

# the documented floors
documented = {}
for line in open(doc):
    m = re.match(r'\|\s*(\d+)\s*\|([^|]*)\|', line)
    if not m:
        continue
    for name in re.findall(r'`([\w./]+)`', m.group(2)):
        if name.endswith('/'):          # a row of the table of layers
            continue
        path = name if name.startswith('vm/') else 'vm/' + name
        f = path[3:]
        if f in documented:
            bad('%s is listed twice in the floors of doc/internals.md' % path)
        documented[f] = int(m.group(1))
if not documented:
    bad('doc/internals.md has no table of floors')
for f in files:
    if f in documented:
        ok()
    else:
        bad('vm/%s is in no floor of doc/internals.md' % f)
for f in documented:
    if f not in src:
        bad('vm/%s (a floor of doc/internals.md) does not exist' % f)
docfloor = {}
for f, lv in documented.items():
    if f in module:
        m = module[f]
        if docfloor.setdefault(m, lv) != lv:
            bad('vm/%s and its other file are on different floors' % f)
for a in modules:
    for b in deps[a]:
        if a in docfloor and b in docfloor:
            if docfloor[b] < docfloor[a]:
                ok()
            else:
                bad('%s (floor %d) depends on %s (floor %d): %s'
                    % (a, docfloor[a], b, docfloor[b],
                       ' '.join(sorted(deps[a][b])[:6])))

# the folders: layers, READMEs, size
layer = {}
for line in open(doc):
    m = re.match(r'\|\s*(\d+)\s*\|\s*`vm/(\w+)/`\s*\|', line)
    if m:
        if m.group(2) in layer:
            bad('vm/%s/ is listed twice in the layers of doc/internals.md'
                % m.group(2))
        layer[m.group(2)] = int(m.group(1))
for d in folders:
    if d in layer:
        ok()
    else:
        bad('vm/%s/ is on no layer of doc/internals.md' % d)
    if os.path.isfile(os.path.join(vm, d, 'README.md')):
        ok()
    else:
        bad('vm/%s/ has no README.md' % d)
    nc = len([f for f in files if f.startswith(d + '/') and f.endswith('.c')])
    if nc <= 16:
        ok()
    else:
        bad('vm/%s/ has %d C sources (at most 16)' % (d, nc))
for d in layer:
    if d not in folders:
        bad('vm/%s/ (a layer of doc/internals.md) does not exist' % d)
for a in modules:
    fa = a.split('/')[0]
    for b in deps[a]:
        fb = b.split('/')[0]
        if fa == fb or fa not in layer or fb not in layer:
            continue
        if layer[fb] < layer[fa]:
            ok()
        else:
            bad('%s (folder %s/, layer %d) depends on %s (folder %s/, '
                'layer %d): %s' % (a, fa, layer[fa], b, fb, layer[fb],
                                   ' '.join(sorted(deps[a][b])[:6])))
band = {}
for f, lv in documented.items():
    d = f.split('/')[0]
    if d in layer:
        lo, hi = band.get(d, (lv, lv))
        band[d] = (min(lo, lv), max(hi, lv))
for a in band:
    for b in band:
        if layer[a] < layer[b]:
            if band[a][1] < band[b][0]:
                ok()
            else:
                bad('the floors of vm/%s/ (%d-%d) are not all below those '
                    'of vm/%s/ (%d-%d), a higher layer'
                    % (a, band[a][0], band[a][1], b, band[b][0], band[b][1]))

tally.done()
