"""tests/doc/csource.py -- what tests/doc/layers.py and prefixes.py both
read in C sources, and their tally of checks

strip(text): the text with its comments blanked and its string literals
emptied, so that names are found only in code.
DEFINITION: matches a function defined without 'static' at the start of
a line (group 1: its name).
Tally: ok() and bad(msg) count the checks; done() prints "N passed,
N failed" and exits 1 when a check failed.
"""
import re
import sys

DEFINITION = re.compile(r'(?m)^(?!static\b)[A-Za-z_][\w \t*]*?\b(\w+)'
                        r'\s*\([^;{}]*\)\s*\{')


def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def ok(self):
        self.passed += 1

    def bad(self, msg):
        self.failed += 1
        print('FAIL: ' + msg)

    def done(self):
        print('%d passed, %d failed' % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
