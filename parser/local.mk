## parser/local.mk -- the front end: reader, macro expander, AST, and the
## bison/flex parser.  Part of libvlad-core.la (see Makefile.am).
##
## parser.y and lexer.l produce parser/parser.c, parser/parser.h and
## parser/lexer.c in the build tree; they are distributed, so a tarball
## builds without bison or flex.  parser.h is in BUILT_SOURCES so that it
## exists before lexer.c, or any file including "parser/parser.h", is
## compiled.  Generated files start with config.h only if the grammar says
## so: use %code top { #include "config.h" } in parser.y and
## %top{ #include "config.h" } in lexer.l.

libvlad_core_la_SOURCES += \
	%reldir%/symbol.c %reldir%/symbol.h \
	%reldir%/datum.c %reldir%/datum.h \
	%reldir%/read.c %reldir%/read.h \
	%reldir%/ast.c %reldir%/ast.h \
	%reldir%/expand.c %reldir%/expand.h \
	%reldir%/cstack.c %reldir%/cstack.h \
	%reldir%/cnum.c %reldir%/cnum.h \
	%reldir%/scanner.h \
	%reldir%/parser.y \
	%reldir%/lexer.l

BUILT_SOURCES += %reldir%/parser.h
