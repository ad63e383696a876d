/*
 * cli/input.c -- what the REPL needs to know about partial input text
 *
 * A lexer just good enough to count open parentheses for the prompt and
 * to drop comments from history entries.  Whether a form is complete is
 * decided by the reader itself (vlad_eval_string answers
 * VLAD_ERR_INCOMPLETE), never here.
 */
#include "config.h"
#include "cli/input.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes that end a token (parser/lexer.l, ATOMCH). */
static int delimiter(char c)
{
    return c == '\0' || strchr(" \t\n\r\f\v()[]\";'", c) != NULL;
}

int vl_input_is_definition(const char *form);

/* The copy of scan(): bytes are appended to 'copy' (when not NULL). */
typedef struct Copy {
    char *buf;
    size_t n;
} Copy;

static void put(Copy *c, char ch)
{
    if (c->buf != NULL)
        c->buf[c->n++] = ch;
}

/* A newline outside a string: one space, and no indentation after it. */
static const char *join_line(Copy *c, const char *p)
{
    if (c->buf != NULL && c->n > 0 && c->buf[c->n - 1] != ' ')
        put(c, ' ');
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Scan 'text'; when 'copy' is not NULL, write the text there without its
   ';' comments, its lines joined by single spaces.  When 'forms' is not
   NULL, find the top-level forms around forms->target.  When 'opener' is not NULL, set it as
   vl_input_opener says. */
#define OPENERS 256              /* the depth vl_input_opener follows */

/* Where the top-level forms around a position are (scan()). */
typedef struct Forms {
    const char *target;     /* the position */
    const char *at;         /* the last form starting at or before it */
    const char *next;       /* the first form starting after it */
} Forms;

static void scan(const char *text, VlScan *out, char *copy, Forms *forms,
                 const char **opener)
{
    const char *open[OPENERS];  /* where each open parenthesis is */
    VlScan s = {0, 0, 0, 0};
    Copy c = {copy, 0};
    const char *p = text;
    int quoted = 0;             /* the next datum is inside a quote */
    while (*p != '\0') {
        if (s.depth == 0 && !s.in_string && !s.in_comment && !quoted
            && !isspace((unsigned char)*p) && *p != ';' && *p != ')'
            && *p != ']' && !(*p == '#' && (p[1] == '|' || p[1] == ';'))) {
            /* a top-level form starts here */
            if (forms != NULL && p <= forms->target)
                forms->at = p;
            else if (forms != NULL && forms->next == NULL)
                forms->next = p;
            if (!vl_input_is_definition(p))
                s.expressions++;
        }
        quoted = !s.in_string && !s.in_comment && s.depth == 0
                 && (*p == '\'' || (quoted && isspace((unsigned char)*p)));
        char ch = *p;
        if (s.in_string) {
            put(&c, ch);
            if (ch == '\\' && p[1] != '\0') {
                put(&c, p[1]);
                p += 2;
                continue;
            }
            if (ch == '"')
                s.in_string = 0;
            p++;
        } else if (ch == '\n') {
            p = join_line(&c, p);
        } else if (s.in_comment) {
            int two = (ch == '|' && p[1] == '#') || (ch == '#' && p[1] == '|');
            if (two) {
                s.in_comment += ch == '#' ? 1 : -1;
                put(&c, ch);
                put(&c, p[1]);
                p += 2;
            } else {
                put(&c, ch);
                p++;
            }
        } else if (ch == ';') {
            while (*p != '\0' && *p != '\n')
                p++;
        } else if (ch == '#' && p[1] == ';') {
            put(&c, '#');       /* a datum comment, not a line comment */
            put(&c, ';');
            p += 2;
        } else if (ch == '#' && p[1] == '|') {
            s.in_comment = 1;
            put(&c, '#');
            put(&c, '|');
            p += 2;
        } else {
            if (ch == '(' || ch == '[') {
                if (s.depth < OPENERS)
                    open[s.depth] = p;
                s.depth++;
            } else if ((ch == ')' || ch == ']') && s.depth > 0) {
                s.depth--;
            }
            else if (ch == '"')
                s.in_string = 1;
            put(&c, ch);
            p++;
            if (!delimiter(ch) && ch != '#') {
                /* the rest of an atom ('#' and '|' in it are ordinary) */
                while (!delimiter(*p)) {
                    put(&c, *p);
                    p++;
                }
            }
        }
    }
    if (copy != NULL) {
        while (c.n > 0 && c.buf[c.n - 1] == ' ')
            c.n--;
        copy[c.n] = '\0';
    }
    if (out != NULL)
        *out = s;
    if (opener != NULL)
        *opener = s.depth > 0 && s.depth <= OPENERS && !s.in_string
                  && !s.in_comment ? open[s.depth - 1] : NULL;
}

void vl_input_scan(const char *text, VlScan *out)
{
    scan(text, out, NULL, NULL, NULL);
}

const char *vl_input_form_at(const char *text, int line, int column)
{
    if (line < 1 || column < 1)
        return NULL;
    const char *p = text;
    for (int l = 1; l < line; l++) {
        p = strchr(p, '\n');
        if (p == NULL)
            return NULL;
        p++;
    }
    for (int k = 1; k < column && *p != '\0' && *p != '\n'; k++)
        p++;
    Forms forms = {p, NULL, NULL};
    scan(text, NULL, NULL, &forms, NULL);
    return forms.at;
}

const char *vl_input_next_form(const char *text, const char *form)
{
    Forms forms = {form, NULL, NULL};
    scan(text, NULL, NULL, &forms, NULL);
    return forms.next;
}

const char *vl_input_opener(const char *text)
{
    const char *open = NULL;
    scan(text, NULL, NULL, NULL, &open);
    return open;
}

int vl_input_is_definition(const char *form)
{
    if (form == NULL || (*form != '(' && *form != '['))
        return 0;
    form++;
    while (isspace((unsigned char)*form))
        form++;
    return strncmp(form, "define", 6) == 0 && delimiter(form[6]);
}

char *vl_input_prompt(char *buf, size_t cap, const char *text)
{
    if (text[0] == '\0') {
        snprintf(buf, cap, "vlad> ");
        return buf;
    }
    VlScan s;
    vl_input_scan(text, &s);
    char mark[32];
    if (s.in_string)
        snprintf(mark, sizeof mark, "\"");
    else if (s.in_comment)
        snprintf(mark, sizeof mark, "#|");
    else
        snprintf(mark, sizeof mark, "%d", s.depth);
    /* as wide as "vlad> " while the mark leaves room for dots */
    size_t len = strlen(mark);
    size_t dots = len < 4 ? 4 - len : 0;
    snprintf(buf, cap, "%.*s%s> ", (int)dots, "....", mark);
    return buf;
}

int vl_input_blank(const char *text)
{
    for (; *text != '\0'; text++)
        if (!isspace((unsigned char)*text))
            return 0;
    return 1;
}

char *vl_input_history_entry(const char *text)
{
    if (vl_input_blank(text))
        return NULL;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return NULL;
    const char *nl = strchr(text, '\n');
    if (nl == NULL || nl == text + len - 1) {
        /* one line: as typed */
        memcpy(copy, text, len + 1);
        if (nl != NULL)
            copy[len - 1] = '\0';
        return copy;
    }
    scan(text, NULL, copy, NULL, NULL);
    return copy;
}
