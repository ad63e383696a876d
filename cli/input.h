/*
 * cli/input.h -- what the REPL needs to know about partial input text
 */
#ifndef VL_CLI_INPUT_H
#define VL_CLI_INPUT_H

#include <stddef.h>

/* Where the text of an unfinished form stands. */
typedef struct VlScan {
    int depth;          /* open parentheses and brackets not yet closed */
    int in_string;      /* inside a string literal */
    int in_comment;     /* inside a #| |# comment */
    int expressions;    /* top-level forms that are not definitions (a
                           #t may count twice) */
} VlScan;

/* Scan 'text' as the reader would (strings, ';' and '#| |#' comments). */
void vl_input_scan(const char *text, VlScan *out);

/* The start of the top-level form of 'text' that holds the position
   'line':'column' (1-based, as in error messages), or NULL. */
const char *vl_input_form_at(const char *text, int line, int column);

/* The innermost parenthesis or bracket still open at the end of 'text'
   (where a ')' typed next would match), or NULL (none, inside a string or
   comment, or nested deeper than 256). */
const char *vl_input_opener(const char *text);

/* The start of the first top-level form of 'text' after the one at 'form'
   (a position in 'text'), or NULL when none follows. */
const char *vl_input_next_form(const char *text, const char *form);

/* Whether the form at 'form' is a definition ("(define ..."). */
int vl_input_is_definition(const char *form);

/* The prompt for the next line when 'text' (complete lines) has been read
   so far: "vlad> " for the first line, else a continuation prompt of the
   same width that shows the nesting depth ("...2> "), an open string
   ("...\"> ") or an open block comment ("..#|> ").  Returns 'buf'. */
char *vl_input_prompt(char *buf, size_t cap, const char *text);

/* One line for the history that stands for the whole input 'text': its
   lines joined by spaces, without ';' comments (which would swallow what
   follows) and without the final newline.  NULL when the text is blank
   or memory is exhausted; free() the result. */
char *vl_input_history_entry(const char *text);

/* Whether 'text' is blank (only whitespace). */
int vl_input_blank(const char *text);

#endif
