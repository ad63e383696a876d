#!/bin/sh
# tests/doc/recipe-repl.sh -- doc/internals.md's checklist "A new REPL
# command" is all it takes
#
# In a scratch copy of the tree (tests/doc/recipe-lib.sh), makes every edit
# the checklist lists, and only those, for a throw-away command ,echo TEXT
# (prints TEXT):
#   1. cli/meta.c: its declaration, its row in `commands` (,help's text),
#      its function
#   2. doc/repl.md: its row in the table of section "Commands"
#   3. doc/vlad.1.in: its entry under INTERACTIVE USE
#   4. tests/repl/commands.py: its name in ,help's list, and its check
# then builds the copy's vlad and drives it on a pseudo-terminal
# (tests/repl/vlpty.py): ,echo and an abbreviation of it print their
# argument, ,echo alone is refused with its usage; every command ,help
# lists has its row in doc/repl.md and its entry in the manual page; and
# the copy's tests/repl/commands.py passes.  A place the checklist forgets
# fails here.  Prints "N passed, N failed".

. "${srcdir:-.}/tests/doc/recipe-lib.sh"
recipe_setup recipe-repl

# 1. the command
recipe_edit cli/meta.c 's.replace("static void cmd_quit(VlSession *s, const char *arg);", '\
'"static void cmd_echo(VlSession *s, const char *arg);\n"'\
'"static void cmd_quit(VlSession *s, const char *arg);", 1)'
recipe_edit cli/meta.c 's.replace("    {\",quit\",", '\
'"    {\",echo\", \"TEXT\", 1, \"print TEXT\", cmd_echo},\n    {\",quit\",", 1)'
cat >>"$tree/cli/meta.c" <<'EOF'

static void cmd_echo(VlSession *s, const char *arg)
{
    (void)s;
    printf("%s\n", arg);
}
EOF
# 2. the guide
recipe_edit doc/repl.md 's.replace("| `,quit` |", '\
'"| `,echo TEXT` | print TEXT |\n| `,quit` |", 1)'
# 3. the manual page
recipe_edit doc/vlad.1.in 's.replace("\n.B ,quit\n", '\
'"\n.BI ,echo \" text\"\nPrint\n.IR text .\n.TP\n.B ,quit\n", 1)'
# 4. the REPL's test of its commands
recipe_edit tests/repl/commands.py 's.replace("\",drop\", \",quit\"):", '\
'"\",drop\", \",echo TEXT\", \",quit\"):", 1)'
recipe_edit tests/repl/commands.py 's.replace("\n\n\nfor name, fn in [", '\
'"\n\n\ndef echo_command():\n"'\
'"    v = session()\n"'\
'"    cmd(v, \",echo hello,  world\", r\"hello,  world\\n\")\n"'\
'"    cmd(v, \",echo\", r\"usage: ,echo TEXT\\n\")\n"'\
'"    bye(v)\n"'\
'"\n\nfor name, fn in [", 1)'
recipe_edit tests/repl/commands.py 's.replace("(\",quit\", quit_command),", '\
'"(\",echo\", echo_command),\n                 (\",quit\", quit_command),", 1)'

recipe_make vlad
vlad=$tree/vlad

# the command on a terminal, and every command of ,help documented
cat >"$tmp/drive.py" <<'EOF'
import os
import re
import sys
tree = sys.argv[1]
sys.path.insert(0, os.path.join(tree, "tests", "repl"))
from vlpty import command as cmd, leave as bye
from vlpty import Checks, Vlad

t = Checks()


def the_command():
    v = Vlad(["-q"])
    v.prompt()
    cmd(v, ",echo one two", r"one two\n")
    cmd(v, ",ec three", r"three\n")              # a unique prefix
    cmd(v, ",echo", r"usage: ,echo TEXT\n")
    bye(v)


def documented():
    v = Vlad(["-q"])
    v.prompt()
    out = cmd(v, ",help", r"Type VLAD forms.*")
    bye(v)
    names = re.findall(r"^  (,[a-z-]+)", out, re.M)
    if ",echo" not in names:
        v.fail(",help does not list ,echo:\n" + out)
    with open(os.path.join(tree, "doc", "repl.md")) as f:
        guide = f.read()
    with open(os.path.join(tree, "doc", "vlad.1.in")) as f:
        man = f.read().replace("\\-", "-")
    for name in names:
        if not re.search(r"^\| `" + re.escape(name) + r"[ `]", guide, re.M):
            v.fail("%s has no row in doc/repl.md's table" % name)
        if not re.search(r'^\.B[IR]? "?' + re.escape(name) + r'[ "\n]', man,
                         re.M):
            v.fail("%s has no entry in doc/vlad.1.in" % name)


t.check(",echo on a terminal", the_command)
t.check("every command of ,help in doc/repl.md and doc/vlad.1.in",
        documented)
t.finish()
EOF
if VLAD=$vlad PYTHONDONTWRITEBYTECODE=1 python3 "$tmp/drive.py" "$tree" \
        >"$tmp/drive.log" 2>&1; then
    ok
else
    cat "$tmp/drive.log"
    bad "the new command through the REPL"
fi
if (cd "$tree" && VLAD=$vlad PYTHONDONTWRITEBYTECODE=1 \
        python3 tests/repl/commands.py) >"$tmp/commands.log" 2>&1; then
    ok
else
    cat "$tmp/commands.log"
    bad "tests/repl/commands.py in the scratch tree"
fi
recipe_finish
