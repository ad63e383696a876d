#!/usr/bin/env python3
"""tests/doc/layers.py -- vm/ is built in folders and floors, and
doc/internals.md's map of them is true

vm/ is a few folders, each a layer (doc/internals.md's table "| layer |
folder | ...").  A module of vm/ is a file FOLDER/x.c with its header
FOLDER/x.h (or a header alone).
Module A depends on module B when one of A's files includes one of B's
headers, or names a function B's .c defines (not static; a header's
prototype of it is no use of it) or a static
inline function or macro B's header defines (a macro defined in two
places, or undefined somewhere, is an X-macro's parameter, not a
definition).  Checked:
  - no module is in a circle: no two modules depend on each other,
    directly or through others;
  - doc/internals.md's table of floors ("| floor | files | ...") lists
    every file of vm/ once, and every dependency goes to a lower floor;
  - its table of layers lists every folder of vm/ once; a module depends
    only on modules of its own folder or of folders on lower layers, and
    the floors of a folder all lie above those of the folders below it
    (the table of floors reads folder by folder, bottom up);
  - every folder has a README.md and at most 16 C sources.
With -v, prints each module's computed floor and what it depends on.
Prints "N passed, N failed"; exit status 1 when a check fails.
"""
import os
import re
import sys

srcdir = os.environ.get('srcdir', '.')
vm = os.path.join(srcdir, 'vm')
doc = os.path.join(srcdir, 'doc', 'internals.md')
verbose = '-v' in sys.argv
passed = failed = 0


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print('FAIL: ' + msg)


def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


folders = sorted(d for d in os.listdir(vm) if not d.startswith('.')
                 and os.path.isdir(os.path.join(vm, d)))
files = sorted(d + '/' + f for d in folders
               for f in os.listdir(os.path.join(vm, d))
               if re.fullmatch(r'\w+\.[ch]', f))
src = {f: open(os.path.join(vm, f)).read() for f in files}
code = {f: strip(src[f]) for f in files}
module = {f: f[:-2] for f in files}
modules = sorted(set(module.values()))

defs, multi = {}, set()


def define(name, f):
    if name in defs and defs[name] != module[f]:
        multi.add(name)
    defs.setdefault(name, module[f])


for f in files:
    c = code[f]
    if f.endswith('.c'):
        for m in re.finditer(r'(?m)^(?!static\b)[A-Za-z_][\w \t*]*?\b(\w+)'
                             r'\s*\([^;{}]*\)\s*\{', c):
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
    for inc in re.findall(r'#include "vm/(\w+/\w+\.h)"', src[f]):
        if inc not in module:
            bad('%s includes vm/%s, which does not exist' % (f, inc))
        elif module[inc] != a:
            deps[a].setdefault(module[inc], set()).add('#include')
    # a header's prototype declares its function, it does not use it: an
    # interface header (vm/cpj/cpj.h) declares functions of several modules
    declared = set(re.findall(r'VL_INTERNAL[^;{}(]*?\b(\w+)\s*\(',
                              code[f])) if f.endswith('.h') else set()
    for name in set(re.findall(r'\b[A-Za-z_]\w*\b', code[f])) - declared:
        b = defs.get(name)
        if b is not None and b != a and name not in multi:
            deps[a].setdefault(b, set()).add(name)

# circles: strongly connected sets of modules (Tarjan, iterative)
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
                lines.append('    %s -> %s: %s' % (a, b, ' '.join(why[:6])))
    bad('modules in a circle: %s\n%s' % (' '.join(comp), '\n'.join(lines)))

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
        print('floor %2d %-10s -> %s' % (floor[m], m,
                                          ' '.join(sorted(deps[m]))))

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

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
