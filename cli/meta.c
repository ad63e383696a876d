/*
 * cli/meta.c -- the REPL's comma commands (,help ,load ,time ...)
 *
 * A line whose first non-blank byte is a comma, typed at the first
 * prompt of an input, is a command for the REPL, not VLAD code.  A
 * command may be abbreviated to any prefix that names only it (",q");
 * a prefix of ,help is ,help even where ,heap-limit shares it (",h").
 * (exit), exit and quit typed alone are answered here too, and
 * ,describe and ,apropos read the generated cli/doctable.c.
 * Commands print on standard output; complaints go to standard error and
 * the REPL goes on.
 */
#include "config.h"
#include "cli/meta.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/doctable.h"
#include "cli/input.h"
#include "cli/options.h"
#include "cli/stats.h"

typedef struct Command {
    const char *name;       /* with the comma */
    const char *arg;        /* how the argument is written, "" for none */
    int arg_required;       /* 1: required, 0: optional, -1: none */
    const char *help;
    void (*run)(VlSession *s, const char *arg);
} Command;

static void cmd_help(VlSession *s, const char *arg);
static void cmd_load(VlSession *s, const char *arg);
static void cmd_stats(VlSession *s, const char *arg);
static void cmd_checkpoint(VlSession *s, const char *arg);
static void cmd_step_limit(VlSession *s, const char *arg);
static void cmd_heap_limit(VlSession *s, const char *arg);
static void cmd_describe(VlSession *s, const char *arg);
static void cmd_apropos(VlSession *s, const char *arg);
static void cmd_disassemble(VlSession *s, const char *arg);
static void cmd_env(VlSession *s, const char *arg);
static void cmd_resume(VlSession *s, const char *arg);
static void cmd_drop(VlSession *s, const char *arg);
static void cmd_save(VlSession *s, const char *arg);
static void cmd_restore(VlSession *s, const char *arg);
static void cmd_quit(VlSession *s, const char *arg);

/* ,time is handled apart (its argument is an expression). */
static const Command commands[] = {
    {",help", "", -1, "list these commands", cmd_help},
    {",load", "FILE", 1, "run the program in FILE here (values printed)",
     cmd_load},
    {",time", "EXPR", 1, "evaluate EXPR, then print its wall time and steps",
     NULL},
    {",stats", "", -1, "statistics of the last evaluation (steps, time, "
     "heap, AD,\n                      checkpoint-*j)", cmd_stats},
    {",checkpoint", "[SPEC]", 0, "show or set the strategy of checkpoint-*j "
     "(as --checkpoint;\n                      'default' restores the "
     "default)", cmd_checkpoint},
    {",step-limit", "[N]", 0, "show or set the step limit of each "
     "evaluation (0: none)", cmd_step_limit},
    {",heap-limit", "[BYTES]", 0, "show or set the heap limit (suffixes k, "
     "M, G; 0: none)", cmd_heap_limit},
    {",describe", "NAME", 1, "what NAME is: its documentation, or your "
     "definition", cmd_describe},
    {",apropos", "TEXT", 1, "the documented names whose name or text holds "
     "TEXT", cmd_apropos},
    {",disassemble", "NAME", 1, "the bytecode of the procedure bound to "
     "NAME (as vlad\n                      --disassemble)", cmd_disassemble},
    {",env", "", -1, "list your definitions and their values", cmd_env},
    {",resume", "", -1, "continue the evaluation Ctrl-C suspended",
     cmd_resume},
    {",drop", "", -1, "forget the evaluation Ctrl-C suspended", cmd_drop},
    {",save", "[NAME] FILE", 1, "save the suspended evaluation (or the "
     "checkpoint NAME) to\n                      FILE, for ,restore or "
     "vlad --resume", cmd_save},
    {",restore", "FILE [NAME]", 1, "load a saved checkpoint: ,resume "
     "continues it (or bind it\n                      to NAME)",
     cmd_restore},
    {",quit", "", -1, "leave the REPL (as Ctrl-D and (exit))", cmd_quit},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

const char *vl_meta_name(int i)
{
    return i >= 0 && (size_t)i < NCOMMANDS ? commands[i].name : NULL;
}

const char *vl_meta_arg_word(const char *name, int i, int *files)
{
    *files = strcmp(name, ",load") == 0 || strcmp(name, ",save") == 0
             || strcmp(name, ",restore") == 0;
    if (strcmp(name, ",checkpoint") != 0 || i < 0)
        return NULL;
    const char *strategy = vlad_checkpoint_strategy(i);
    if (strategy != NULL)
        return strategy;
    /* then "default" */
    return vlad_checkpoint_strategy(i - 1) != NULL ? "default" : NULL;
}

int vl_meta_is_command(const char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    return *text == ',';
}

/* The command named by the word at 'w' (n bytes): exact, or the only one
   it is a prefix of.  NULL (reported) otherwise. */
static const Command *find(const char *w, size_t n)
{
    const Command *found = NULL;
    int matches = 0;
    if (n <= 1) {
        fprintf(stderr, "a command name must follow ',' (,help lists the "
                        "commands)\n");
        return NULL;
    }
    for (size_t j = 0; j < NCOMMANDS; j++) {
        const char *name = commands[j].name;
        if (strncmp(name, w, n) != 0)
            continue;
        if (name[n] == '\0')
            return &commands[j];
        found = &commands[j];
        matches++;
    }
    if (matches == 1)
        return found;
    if (matches > 1 && strncmp(",help", w, n) == 0)
        return &commands[0];    /* ,h and ,he are ,help, as ever */
    if (matches == 0)
        fprintf(stderr, "unknown command '%.*s' (,help lists the commands)\n",
                (int)n, w);
    else
        fprintf(stderr, "ambiguous command '%.*s' (,help lists the "
                        "commands)\n", (int)n, w);
    return NULL;
}

int vl_meta_run(VlSession *s, const char *text)
{
    const char *w = text;
    while (isspace((unsigned char)*w))
        w++;
    size_t n = 0;
    while (w[n] != '\0' && !isspace((unsigned char)w[n]))
        n++;
    const Command *c = find(w, n);
    if (c == NULL)
        return VL_META_DONE;
    const char *arg = w + n;
    if (c->run == NULL) {
        /* ,time EXPR: the expression keeps its columns (the command word
           becomes blanks), so messages point into the typed line */
        if (vl_input_blank(arg)) {
            fprintf(stderr, "usage: ,time EXPR\n");
            return VL_META_DONE;
        }
        char *src = strdup(text);
        if (src == NULL)
            return VL_META_DONE;
        memset(src + (w - text), ' ', n);
        VladStatus st = vl_session_eval(s, src, "<repl>",
                                        VL_EVAL_QUIET_INCOMPLETE);
        free(src);
        if (st == VLAD_ERR_INCOMPLETE)
            return VL_META_INCOMPLETE;
        if (st == VLAD_OK || st == VLAD_ERR_RUNTIME || st == VLAD_ERR_LIMIT
            || st == VLAD_ERR_INTERRUPTED || st == VLAD_ERR_MEMORY)
            printf("time: %.3f s, %lld steps\n", s->seconds,
                   (long long)(s->after.steps_total
                               - s->before.steps_total));
        fflush(stdout);
        return VL_META_DONE;
    }
    /* the argument: one line, trimmed */
    while (isspace((unsigned char)*arg))
        arg++;
    char buf[4096];
    size_t len = strcspn(arg, "\n");
    while (len > 0 && isspace((unsigned char)arg[len - 1]))
        len--;
    if (len >= sizeof buf) {
        fprintf(stderr, "%s: argument too long\n", c->name);
        return VL_META_DONE;
    }
    memcpy(buf, arg, len);
    buf[len] = '\0';
    if (c->arg_required < 0 && len > 0)
        fprintf(stderr, "%s takes no argument\n", c->name);
    else if (c->arg_required > 0 && len == 0)
        fprintf(stderr, "usage: %s %s\n", c->name, c->arg);
    else
        c->run(s, buf);
    fflush(stdout);
    return VL_META_DONE;
}

static void cmd_help(VlSession *s, const char *arg)
{
    (void)s, (void)arg;
    printf("Type VLAD forms to evaluate them; a form may span lines.\n"
           "Commands (any unambiguous prefix works, e.g. ,q):\n");
    for (size_t j = 0; j < NCOMMANDS; j++) {
        char head[40];
        snprintf(head, sizeof head, "%s %s", commands[j].name,
                 commands[j].arg);
        printf("  %-19s %s\n", head, commands[j].help);
    }
    printf("Keys: Tab completes names and commands, Up/Down recall the "
           "history,\nCtrl-C stops an evaluation (,resume continues it) "
           "or clears the line,\nCtrl-D leaves.\n");
}

static void cmd_load(VlSession *s, const char *arg)
{
    char path[4096];
    size_t len = strlen(arg);
    if (len >= 2 && arg[0] == '"' && arg[len - 1] == '"') {
        arg++;
        len -= 2;
    }
    const char *home = getenv("HOME");
    if (len >= 1 && arg[0] == '~' && (len == 1 || arg[1] == '/')
        && home != NULL)
        snprintf(path, sizeof path, "%s%.*s", home, (int)len - 1, arg + 1);
    else
        snprintf(path, sizeof path, "%.*s", (int)len, arg);
    char full[4096];
    vl_session_load(s, vl_options_program_path(path, full, sizeof full));
}

static void cmd_stats(VlSession *s, const char *arg)
{
    (void)arg;
    if (!s->have_last) {
        printf("no evaluation yet\n");
        return;
    }
    vl_stats_print_delta(stdout, &s->before, &s->after, s->seconds);
}

static void cmd_checkpoint(VlSession *s, const char *arg)
{
    if (*arg == '\0') {
        printf("checkpoint-*j strategy: %s\n",
               s->checkpoint[0] != '\0' ? s->checkpoint
               : "default (binomial,budget=32M)");
        return;
    }
    const char *spec = strcmp(arg, "default") == 0 ? "" : arg;
    if (strlen(spec) >= sizeof s->checkpoint) {
        fprintf(stderr, ",checkpoint: SPEC too long\n");
        return;
    }
    if (vlad_set_checkpoint(s->S, spec) != VLAD_OK) {
        fprintf(stderr, ",checkpoint: %s\n",
                vlad_last_error(s->S)->message);
        return;
    }
    snprintf(s->checkpoint, sizeof s->checkpoint, "%s", spec);
    printf("checkpoint-*j strategy: %s\n",
           spec[0] != '\0' ? spec : "default");
}

static void cmd_step_limit(VlSession *s, const char *arg)
{
    if (*arg != '\0') {
        int64_t n;
        if (strcmp(arg, "none") == 0 || strcmp(arg, "off") == 0) {
            n = 0;
        } else if (!vl_options_parse_steps(arg, &n)) {
            fprintf(stderr, ",step-limit needs a non-negative whole number "
                            "(0 or 'none': no limit), got '%s'\n", arg);
            return;
        }
        s->step_limit = n;
        vlad_set_step_limit(s->S, n);
    }
    if (s->step_limit > 0)
        printf("step limit: %lld steps\n", (long long)s->step_limit);
    else
        printf("step limit: none\n");
}

/* A growing list of names (copies). */
typedef struct Names {
    char **v;               /* the names, malloc'd */
    size_t n, cap;          /* how many, and room for */
} Names;

static void collect_user(void *ud, const char *name, int user)
{
    Names *ns = ud;
    if (!user)
        return;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 32;
        char **v = realloc(ns->v, cap * sizeof *v);
        if (v == NULL)
            return;
        ns->v = v;
        ns->cap = cap;
    }
    char *copy = strdup(name);
    if (copy != NULL)
        ns->v[ns->n++] = copy;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void cmd_env(VlSession *s, const char *arg)
{
    (void)arg;
    Names ns = {NULL, 0, 0};
    vlad_globals(s->S, collect_user, &ns);
    if (ns.n > 0)
        qsort(ns.v, ns.n, sizeof *ns.v, by_name);
    int shown = 0;
    for (size_t j = 0; j < ns.n; j++) {
        VladValue v;
        if (vlad_get_global(s->S, ns.v[j], &v)) {
            const char *text = vlad_to_string(s->S, v);
            /* the command line's own (empty) 'arguments' and the REPL's
               _ are not yours */
            int repls = strcmp(ns.v[j], VL_LAST_VALUE_NAME) == 0
                        && vl_session_owns_last_value(s);
            if (!repls && (strcmp(ns.v[j], "arguments") != 0
                           || strcmp(text, "()") != 0)) {
                int room = 72 - (int)strlen(ns.v[j]);
                if (room < 16)
                    room = 16;
                if ((int)strlen(text) > room)
                    printf("%s = %.*s...\n", ns.v[j], room - 3, text);
                else
                    printf("%s = %s\n", ns.v[j], text);
                shown++;
            }
        }
        free(ns.v[j]);
    }
    free(ns.v);
    if (shown == 0)
        printf("no definitions yet\n");
}

static void cmd_resume(VlSession *s, const char *arg)
{
    (void)arg;
    if (!s->suspended) {
        fprintf(stderr, "nothing to resume (Ctrl-C during an evaluation "
                        "suspends it)\n");
        return;
    }
    vl_session_resume(s);
}

/* Split "A B" (at its first blank) into 'a' and 'b' (NULL: one word). */
static void two_words(char *arg, char **a, char **b)
{
    *a = arg;
    *b = NULL;
    char *sp = arg + strcspn(arg, " \t");
    if (*sp == '\0')
        return;
    *sp++ = '\0';
    while (isspace((unsigned char)*sp))
        sp++;
    *b = sp;
}

static void cmd_save(VlSession *s, const char *arg)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", arg);
    char *name, *file;
    two_words(buf, &name, &file);
    VladValue u;
    if (file == NULL) {
        file = name;
        name = NULL;
        if (!s->suspended) {
            fprintf(stderr, "nothing to save: Ctrl-C during an evaluation "
                            "suspends it (,save NAME FILE saves the "
                            "checkpoint NAME)\n");
            return;
        }
        u = s->checkpoint_value;
    } else if (!vlad_get_global(s->S, name, &u) || !vlad_is_checkpoint(u)) {
        fprintf(stderr, ",save: %s is not a checkpoint\n", name);
        return;
    }
    if (vlad_checkpoint_save(s->S, u, file) != VLAD_OK) {
        fputs(vlad_last_error(s->S)->text, stderr);
        return;
    }
    printf("saved %s to %s (vlad --resume %s, or ,restore, finishes "
           "it)\n", name != NULL ? name : VL_SUSPENDED_NAME, file, file);
}

static void cmd_restore(VlSession *s, const char *arg)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", arg);
    char *file, *name;
    two_words(buf, &file, &name);
    VladValue u;
    if (vl_session_restore(s, file, &u) != VLAD_OK)
        return;
    if (name != NULL) {
        if (vlad_set_global(s->S, name, u) != VLAD_OK) {
            fputs(vlad_last_error(s->S)->text, stderr);
            return;
        }
        printf("restored %s as %s ((resume %s) continues it)\n", file, name,
               name);
        return;
    }
    if (s->suspended)
        fprintf(stderr, "the evaluation suspended before is dropped\n");
    vl_session_adopt(s, u);
    printf("restored %s as %s: ,resume continues it\n", file,
           VL_SUSPENDED_NAME);
}

/* ,disassemble NAME: the bytecode listing of the procedure bound to NAME
   (vlad_disassemble writes it through the session's output). */
static void cmd_disassemble(VlSession *s, const char *arg)
{
    if (vlad_disassemble(s->S, NULL, arg) != VLAD_OK)
        fprintf(stderr, ",disassemble: %s\n",
                vlad_last_error(s->S)->message);
    vlad_flush(s->S);
    fflush(stdout);
}

static void cmd_drop(VlSession *s, const char *arg)
{
    (void)arg;
    if (!s->suspended) {
        fprintf(stderr, "nothing to drop\n");
        return;
    }
    vl_session_drop(s);
    printf("dropped the suspended evaluation\n");
}

static void cmd_quit(VlSession *s, const char *arg)
{
    (void)arg;
    s->quit = 1;
}

static void cmd_heap_limit(VlSession *s, const char *arg)
{
    if (*arg != '\0') {
        int64_t n;
        if (strcmp(arg, "none") == 0 || strcmp(arg, "off") == 0) {
            n = 0;
        } else if (!vl_options_parse_size(arg, &n)) {
            fprintf(stderr, ",heap-limit needs a size in bytes (a whole "
                            "number, suffix k, M or G; 0 or 'none': no "
                            "limit), got '%s'\n", arg);
            return;
        }
        if ((uint64_t)n > SIZE_MAX)
            n = (int64_t)(SIZE_MAX >> 1);
        s->heap_limit = n;
        vlad_set_heap_limit(s->S, (size_t)n);
    }
    if (s->heap_limit > 0)
        printf("heap limit: %lld bytes\n", (long long)s->heap_limit);
    else
        printf("heap limit: none\n");
}

/* ===== ,describe and ,apropos ===== */

/* Special-form keywords: not bound, but typed all the time (completion
   offers them too). */
static const char *const keywords[] = {
    "and", "begin", "cond", "cons", "cons*", "define", "else", "if",
    "include", "lambda", "let", "let*", "letrec", "list", "or", "quote", NULL
};

const char *vl_meta_keyword(int i)
{
    return i >= 0 && (size_t)i < sizeof keywords / sizeof keywords[0]
           ? keywords[i] : NULL;
}

static int is_keyword(const char *name)
{
    for (int j = 0; keywords[j] != NULL; j++)
        if (strcmp(keywords[j], name) == 0)
            return 1;
    return 0;
}

/* What vlad_globals says of one name (find_global). */
typedef struct Find {
    const char *name;       /* the name looked for */
    int bound;              /* it is bound */
    int user;               /* by the program (not the prelude) */
} Find;

static void find_global(void *ud, const char *name, int user)
{
    Find *f = ud;
    if (strcmp(f->name, name) == 0) {
        f->bound = 1;
        f->user = user;
    }
}

/* Print 'text' indented by 'indent' blanks, each line cut into lines of
   at most WRAP columns at blanks (a continuation keeps the line's own
   indentation). */
#define WRAP 76
static void print_wrapped(const char *text, int indent)
{
    while (*text != '\0') {
        size_t len = strcspn(text, "\n");
        size_t lead = strspn(text, " ");
        const char *p = text, *end = text + len;
        int first = 1;
        while (p < end) {
            int room = WRAP - indent - (first ? 0 : (int)lead);
            size_t n = (size_t)(end - p);
            if ((int)n > room) {
                n = (size_t)room;
                while (n > 0 && p[n] != ' ')
                    n--;
                if (n == 0)             /* one long word: cut after it */
                    n = strcspn(p, " ");
            }
            printf("%*s%.*s\n", indent + (first ? 0 : (int)lead), "",
                   (int)n, p);
            p += n;
            while (p < end && *p == ' ')
                p++;
            first = 0;
        }
        if (p == text)
            putchar('\n');              /* an empty line */
        text = *end == '\n' ? end + 1 : end;
    }
}

/* The value of the global 'name', cut to fit a line after 'used' columns. */
static void print_value(VlSession *s, const char *name, int used)
{
    VladValue v;
    if (!vlad_get_global(s->S, name, &v)) {
        putchar('\n');
        return;
    }
    const char *text = vlad_to_string(s->S, v);
    int room = WRAP - used;
    if (room < 16)
        room = 16;
    if ((int)strlen(text) > room)
        printf("%.*s...\n", room - 3, text);
    else
        printf("%s\n", text);
}

static void cmd_describe(VlSession *s, const char *arg)
{
    if (strpbrk(arg, " \t") != NULL) {
        fprintf(stderr, "usage: ,describe NAME (one name)\n");
        return;
    }
    Find f = {arg, 0, 0};
    vlad_globals(s->S, find_global, &f);
    int docs = 0;
    for (const VlDoc *d = vl_docs; d->name != NULL; d++)
        docs += strcmp(d->name, arg) == 0;
    int repls = (strcmp(arg, VL_SUSPENDED_NAME) == 0 && f.bound)
                || (strcmp(arg, VL_LAST_VALUE_NAME) == 0
                    && vl_session_owns_last_value(s));
    if (repls && strcmp(arg, VL_SUSPENDED_NAME) == 0) {
        printf("%s: the evaluation Ctrl-C suspended last, a checkpoint "
               "(,resume continues it)\n", arg);
    } else if (repls) {
        int n = printf("%s: the value the REPL printed last: ", arg);
        print_value(s, arg, n);
    } else if (f.user) {
        int n = printf("%s is your definition: ", arg);
        print_value(s, arg, n);
        if (docs > 0)
            printf("It replaces the %s of the prelude:\n", arg);
    }
    for (const VlDoc *d = vl_docs; d->name != NULL; d++)
        if (strcmp(d->name, arg) == 0) {
            printf("%s -- %s\n", d->name, d->where);
            print_wrapped(d->text, 2);
        }
    if (is_keyword(arg))
        printf("%s -- a special form (doc/reference.md section 4.3)\n", arg);
    else if (!f.bound)
        printf("%s is not bound (,apropos %s searches the documentation)\n",
               arg, arg);
    else if (docs == 0 && !f.user && !repls) {
        int n = printf("%s is bound, without documentation: ", arg);
        print_value(s, arg, n);
    }
}

/* Whether 'hay' holds 'needle', ignoring case. */
static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay != '\0'; hay++) {
        size_t j = 0;
        while (j < n && hay[j] != '\0'
               && tolower((unsigned char)hay[j])
                  == tolower((unsigned char)needle[j]))
            j++;
        if (j == n)
            return 1;
    }
    return n == 0;
}

/* The program's names that hold a text (collect_matching). */
typedef struct Matches {
    const char *text;       /* the text looked for */
    Names user;             /* the user's definitions whose name holds it */
} Matches;

static void collect_matching(void *ud, const char *name, int user)
{
    Matches *m = ud;
    if (user && contains(name, m->text))
        collect_user(&m->user, name, user);
}

static void cmd_apropos(VlSession *s, const char *arg)
{
    int shown = 0;
    for (const VlDoc *d = vl_docs; d->name != NULL; d++) {
        if (!contains(d->name, arg) && !contains(d->text, arg))
            continue;
        int seen = 0;           /* a name of several entries: once */
        for (const VlDoc *e = vl_docs; e < d; e++)
            seen |= strcmp(e->name, d->name) == 0
                    && (contains(e->name, arg) || contains(e->text, arg));
        if (seen)
            continue;
        int n = printf("%-16s ", d->name);
        size_t len = strcspn(d->text, "\n");
        int room = WRAP - n;
        if ((int)len > room)
            printf("%.*s...\n", room - 3, d->text);
        else
            printf("%.*s\n", (int)len, d->text);
        shown++;
    }
    for (int j = 0; keywords[j] != NULL; j++)
        if (contains(keywords[j], arg)) {
            printf("%-16s a special form\n", keywords[j]);
            shown++;
        }
    Matches m = {arg, {NULL, 0, 0}};
    vlad_globals(s->S, collect_matching, &m);
    if (m.user.n > 0)           /* qsort of NULL is undefined */
        qsort(m.user.v, m.user.n, sizeof *m.user.v, by_name);
    for (size_t j = 0; j < m.user.n; j++) {
        printf("%-16s your definition\n", m.user.v[j]);
        free(m.user.v[j]);
        shown++;
    }
    free(m.user.v);
    if (shown == 0)
        printf("nothing matches '%s'\n", arg);
    else
        printf("(,describe NAME shows one in full)\n");
}

/* ===== (exit), exit and quit typed at the prompt ===== */

static const char *skip_blanks(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* The word at 'p' (up to a delimiter), its length in '*n'. */
static size_t word_length(const char *p)
{
    size_t n = 0;
    while (p[n] != '\0' && !isspace((unsigned char)p[n])
           && strchr("()[]\";'", p[n]) == NULL)
        n++;
    return n;
}

static int is_leave_word(const char *w, size_t n)
{
    return (n == 4 && strncmp(w, "exit", 4) == 0)
           || (n == 4 && strncmp(w, "quit", 4) == 0);
}

static int bound(VlSession *s, const char *w, size_t n)
{
    char name[8];
    snprintf(name, sizeof name, "%.*s", (int)n, w);
    return vlad_get_global(s->S, name, NULL);
}

int vl_meta_leave(VlSession *s, const char *text)
{
    const char *p = skip_blanks(text);
    if (*p != '(') {
        /* a bare exit or quit: how to leave, as Python answers */
        size_t n = word_length(p);
        if (!is_leave_word(p, n) || bound(s, p, n)
            || *skip_blanks(p + n) != '\0')
            return 0;
        printf("Use (exit), ,quit or Ctrl-D to leave the REPL.\n");
        return 1;
    }
    const char *w = skip_blanks(p + 1);
    size_t n = word_length(w);
    if (!is_leave_word(w, n) || bound(s, w, n))
        return 0;
    const char *a = skip_blanks(w + n);
    size_t an = *a == ')' ? 0 : word_length(a);
    const char *close = skip_blanks(a + an);
    if (*close != ')' || *skip_blanks(close + 1) != '\0')
        return 0;       /* not (exit) or (exit N) alone: evaluate it */
    int status = 0;
    if (an > 0) {
        char num[32];
        int64_t v;
        snprintf(num, sizeof num, "%.*s", (int)an, a);
        if (an >= sizeof num || !vl_options_parse_count(num, &v) || v > 255) {
            fprintf(stderr, "(%.*s N): N is the exit status, a whole number "
                            "from 0 to 255, got '%.*s'\n", (int)n, w,
                    (int)an, a);
            return 1;
        }
        status = (int)v;
    }
    s->quit = 1;
    s->exit_status = status;
    return 1;
}
