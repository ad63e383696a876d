/*
 * cli/options.c -- the command line of the vlad program
 *
 * Options come first; the first word that is not an option is FILE and
 * everything after it belongs to the program ("--" ends the options, "-"
 * as FILE is standard input).  With -e, FILE is optional (run after the
 * expressions): a first word that is a decimal real is a program argument
 * instead.  Long options take their value as "--opt VALUE" or
 * "--opt=VALUE", short ones as "-e EXPR" or "-eEXPR"; as with getopt_long,
 * a long option may be abbreviated to any unambiguous prefix (--stat,
 * --step=100).
 */
#include "config.h"
#include "cli/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_line[] = "usage: vlad [OPTIONS] [FILE [ARGS...]]";

static const char help_text[] =
    "Run the VLAD program FILE (or FILE.vlad), after the expressions given\n"
    "with -e, or read a program from standard input (an interactive REPL on\n"
    "a terminal; FILE '-' reads standard input as a script).  A first line\n"
    "starting with #! is ignored.\n"
    "\n"
    "Options:\n"
    "  -e EXPR            evaluate EXPR and print its value (repeatable;\n"
    "                     then FILE, if given, runs)\n"
    "  -I DIR             search DIR for include files (repeatable)\n"
    "  --step-limit N     stop any top-level evaluation after N steps\n"
    "                     (0: no limit; 1e9 is accepted)\n"
    "  --heap-limit BYTES limit the heap to BYTES (suffixes k, M, G;\n"
    "                     0: no limit)\n"
    "  --checkpoint=SPEC  strategy of checkpoint-*j: bisection[,base=N],\n"
    "                     binomial[,slots=S][,base=N] or\n"
    "                     binomial[,budget=BYTES][,base=N]; binomial\n"
    "                     also takes spill=DIR (held states memory does\n"
    "                     not keep go to a file in DIR); both take\n"
    "                     steps=all (every step it runs counts, not only\n"
    "                     those *j would) (default:\n"
    "                     binomial,budget=32M); also read from\n"
    "                     the environment variable VLAD_CHECKPOINT (any\n"
    "                     case)\n"
    "  --resume FILE      finish the computation saved in FILE (by ,save\n"
    "                     in the REPL, or --autosave: then the rest of\n"
    "                     the program too, autosaving to FILE as before,\n"
    "                     and FILE is removed when it ends without error)\n"
    "                     and print its value; no program may be given\n"
    "                     with it\n"
    "  --autosave FILE[,every=SECONDS]\n"
    "                     save the running program to FILE every SECONDS\n"
    "                     (default 30), atomically, so that after a crash\n"
    "                     --resume FILE finishes it; FILE must not exist\n"
    "                     (or be empty) and is removed when the program\n"
    "                     ends without error\n"
    "  --disassemble      print the bytecode of every procedure of FILE\n"
    "                     (each form's and each lambda's) without running\n"
    "                     it (doc/internals.md, \"Reading a bytecode\n"
    "                     listing\")\n"
    "  --stats            print steps, peak heap, AD and checkpoint-*j\n"
    "                     statistics and time on stderr\n"
    "  --progress         show the progress of long checkpoint-*j runs on\n"
    "                     stderr (when it is a terminal), and a rank's long\n"
    "                     waits for messages\n"
    "  -q, --quiet        no banner in the REPL\n"
    "  --version          print the version and exit\n"
    "  -h, --help         print this help and exit\n"
    "  --                 end of the options: the next word is FILE\n"
    "  -                  as FILE: read the program from standard input\n"
    "\n"
    "Long options may be abbreviated to a unique prefix (--stat).\n"
    "Numeric ARGS are available to the program as the list 'arguments'.\n"
    "In the REPL, ,help lists the commands; the history is kept in\n"
    "~/.vlad_history (or $VLAD_HISTORY).  See vlad(1) and doc/repl.md.\n"
    "Exit status: 0 on success, 1 on an error in the program, 2 on bad "
    "usage.\n";

void vl_options_usage(void)
{
    fprintf(stderr, "%s (try 'vlad --help')\n", usage_line);
}

int vl_options_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "vlad: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    vl_options_usage();
    return VL_OPTIONS_USAGE;
}

int vl_options_parse_count(const char *s, int64_t *out)
{
    if (*s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || v > INT64_MAX)
        return 0;
    *out = (int64_t)v;
    return 1;
}

int vl_options_parse_size(const char *s, int64_t *out)
{
    size_t n = strlen(s);
    int shift = 0;
    if (n > 0) {
        switch (s[n - 1]) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: break;
        }
    }
    char digits[32];
    size_t nd = shift ? n - 1 : n;
    if (nd == 0 || nd >= sizeof digits)
        return 0;
    memcpy(digits, s, nd);
    digits[nd] = '\0';
    int64_t v;
    if (!vl_options_parse_count(digits, &v) || v > (INT64_MAX >> shift))
        return 0;
    *out = v << shift;
    return 1;
}

int vl_options_parse_steps(const char *s, int64_t *out)
{
    if (vl_options_parse_count(s, out))
        return 1;
    if (!vl_options_is_decimal(s) || *s == '-')        /* 1e9, 2.5e6 */
        return 0;
    double x = strtod(s, NULL);
    if (!(x >= 0 && x < 9.2e18) || x != (double)(int64_t)x)
        return 0;
    *out = (int64_t)x;
    return 1;
}

const char *vl_options_program_path(const char *path, char *buf, size_t n)
{
    size_t len = strlen(path);
    if (access(path, F_OK) == 0 || len + 6 > n
        || (len >= 5 && strcmp(path + len - 5, ".vlad") == 0))
        return path;
    snprintf(buf, n, "%s.vlad", path);
    return access(buf, F_OK) == 0 ? buf : path;
}

int vl_options_is_decimal(const char *s)
{
    int digits = 0;
    if (*s == '+' || *s == '-')
        s++;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* The options that take a value. */
enum { OPT_E, OPT_I, OPT_STEP_LIMIT, OPT_HEAP_LIMIT, OPT_CHECKPOINT,
       OPT_RESUME, OPT_AUTOSAVE };

static const struct {
    const char *name;
    int id;
} valued[] = {
    {"-e", OPT_E},
    {"-I", OPT_I},
    {"--step-limit", OPT_STEP_LIMIT},
    {"--heap-limit", OPT_HEAP_LIMIT},
    {"--checkpoint", OPT_CHECKPOINT},
    {"--resume", OPT_RESUME},
    {"--autosave", OPT_AUTOSAVE},
};

/* The options without a value: the flag each one sets (NULL: special). */
static int *flag_of(VlOptions *o, const char *a)
{
    if (strcmp(a, "--stats") == 0)
        return &o->stats;
    if (strcmp(a, "--progress") == 0)
        return &o->progress;
    if (strcmp(a, "--disassemble") == 0)
        return &o->disassemble;
    if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
        return &o->quiet;
    return NULL;
}

/* --autosave FILE[,every=SECONDS] (a FILE may hold commas: only a last
   ",every=" followed by a number is the interval). */
static int parse_autosave(VlOptions *o, const char *name, const char *v)
{
    const char *opt = strstr(v, ",every=");
    for (const char *p = opt; p != NULL; p = strstr(p + 1, ",every="))
        opt = p;
    o->autosave_every = VL_AUTOSAVE_EVERY;
    o->autosave_every_given = 0;
    size_t n = strlen(v);
    if (opt != NULL) {
        char *end;
        double s = strtod(opt + 7, &end);
        if (end == opt + 7 || *end != '\0' || !(s >= 0) || s > 1e9)
            return vl_options_error("--autosave: every= needs a number of "
                                    "seconds, got '%s'", opt + 7);
        o->autosave_every = s;
        o->autosave_every_given = 1;
        n = (size_t)(opt - v);
    }
    if (n == 0)
        return vl_options_error("%s needs a file, got ''", name);
    o->autosave = strndup(v, n);
    if (o->autosave == NULL)
        return -1;
    return VL_OPTIONS_RUN;
}

static int set_value(VlOptions *o, int id, const char *name, const char *v)
{
    switch (id) {
    case OPT_E:
        o->exprs[o->nexprs++] = v;
        break;
    case OPT_I:
        if (*v == '\0')
            return vl_options_error("option '%s' needs a directory, got ''",
                                    name);
        o->dirs[o->ndirs++] = v;
        break;
    case OPT_STEP_LIMIT:
        if (!vl_options_parse_steps(v, &o->step_limit))
            return vl_options_error("--step-limit needs a non-negative "
                                    "whole number (such as 1000000 or 1e9), "
                                    "got '%s'", v);
        break;
    case OPT_HEAP_LIMIT:
        if (!vl_options_parse_size(v, &o->heap_limit))
            return vl_options_error("--heap-limit needs a size in bytes (a "
                                    "non-negative integer, optionally with "
                                    "a suffix k, M or G), got '%s'", v);
        break;
    case OPT_CHECKPOINT:
        if (*v == '\0')
            return vl_options_error("%s needs a strategy (bisection or "
                                    "binomial), got ''", name);
        o->checkpoint = v;
        break;
    case OPT_RESUME:
        if (*v == '\0')
            return vl_options_error("%s needs a checkpoint file, got ''",
                                    name);
        o->resume = v;
        break;
    case OPT_AUTOSAVE:
        return parse_autosave(o, name, v);
    default:
        return vl_options_error("internal error: option '%s'", name);
    }
    return VL_OPTIONS_RUN;
}

/* Every long option, for abbreviations. */
static const char *const long_names[] = {
    "--step-limit", "--heap-limit", "--checkpoint", "--resume",
    "--autosave", "--stats", "--progress", "--disassemble",
    "--quiet", "--version", "--help",
};

/* The long option 'a' ("--NAME" or "--NAME=VALUE") with NAME completed
   when it is an unambiguous prefix of one option's name (an exact name
   wins), written to 'out'; 'a' itself when no name starts with NAME.
   Returns 0 (with the usage message printed) when NAME is ambiguous. */
static int complete_long(const char *a, char *out, size_t outlen)
{
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    const char *found = NULL;
    int count = 0;
    for (size_t j = 0; j < sizeof long_names / sizeof long_names[0]; j++) {
        const char *name = long_names[j];
        if (strncmp(name, a, n) != 0)
            continue;
        if (name[n] == '\0') {        /* exact */
            found = name;
            count = 1;
            break;
        }
        found = name;
        count++;
    }
    if (count > 1) {
        char names[200] = "";
        for (size_t j = 0; j < sizeof long_names / sizeof long_names[0]; j++)
            if (strncmp(long_names[j], a, n) == 0) {
                strcat(names, " ");
                strcat(names, long_names[j]);
            }
        char opt[64];
        snprintf(opt, sizeof opt, "%.*s", (int)(n < 60 ? n : 60), a);
        fprintf(stderr, "vlad: option '%s' is ambiguous; possibilities:%s\n",
                opt, names);
        vl_options_usage();
        return 0;
    }
    snprintf(out, outlen, "%s%s", count == 1 ? found : "", count == 1
             ? (eq ? eq : "") : a);
    return 1;
}

int vl_options_parse(int argc, char **argv, VlOptions *o)
{
    memset(o, 0, sizeof *o);
    o->exprs = calloc((size_t)argc + 1, sizeof *o->exprs);
    o->dirs = calloc((size_t)argc + 1, sizeof *o->dirs);
    o->completed = calloc((size_t)argc + 1, sizeof *o->completed);
    if (o->exprs == NULL || o->dirs == NULL || o->completed == NULL)
        return -1;
    int k = 1;
    for (; k < argc; k++) {
        const char *a = argv[k];
        if (strcmp(a, "--") == 0) {
            k++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (a[1] == '-') {
            size_t cap = strlen(a) + 32;   /* the longest name, and '=' */
            char *full = malloc(cap);
            if (full == NULL)
                return -1;
            o->completed[o->ncompleted++] = full;
            if (!complete_long(a, full, cap))
                return VL_OPTIONS_USAGE;
            a = full;
        }
        int *flag = flag_of(o, a);
        if (flag != NULL) {
            *flag = 1;
            continue;
        }
        if (strcmp(a, "--version") == 0)
            return VL_OPTIONS_VERSION;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("%s\n%s", usage_line, help_text);
            return VL_OPTIONS_EXIT;
        }
        int matched = 0;
        for (size_t j = 0; j < sizeof valued / sizeof valued[0]; j++) {
            const char *name = valued[j].name;
            size_t n = strlen(name);
            if (strncmp(a, name, n) != 0)
                continue;
            const char *v;
            if (a[n] == '\0') {
                if (k + 1 >= argc)
                    return vl_options_error("option '%s' needs an argument",
                                            name);
                v = argv[++k];
            } else if (name[1] != '-') {
                v = a + n;              /* -eEXPR, -IDIR */
            } else if (a[n] == '=') {
                v = a + n + 1;          /* --opt=VALUE */
            } else {
                continue;               /* a longer name: unknown */
            }
            int st = set_value(o, valued[j].id, name, v);
            if (st != VL_OPTIONS_RUN)
                return st;
            matched = 1;
            break;
        }
        if (matched)
            continue;
        const char *eq = strchr(a, '=');
        if (eq != NULL && a[1] == '-') {
            char name[64];
            size_t n = (size_t)(eq - a) < sizeof name - 1
                ? (size_t)(eq - a) : sizeof name - 1;
            memcpy(name, a, n);
            name[n] = '\0';
            if (flag_of(o, name) != NULL || strcmp(name, "--version") == 0
                || strcmp(name, "--help") == 0)
                return vl_options_error("option '%s' takes no argument", name);
        }
        return vl_options_error("unknown option '%s'", a);
    }
    if (o->autosave != NULL && o->resume == NULL && k >= argc
        && o->nexprs == 0)
        return vl_options_error("--autosave %s saves a program as it runs: "
                                "give FILE (or -e, or --resume)", o->autosave);
    if (o->autosave != NULL && o->nexprs > 0 && k < argc
        && !vl_options_is_decimal(argv[k]))
        return vl_options_error("--autosave %s saves one program: give -e or "
                                "FILE, not both", o->autosave);
    if (o->resume != NULL && (k < argc || o->nexprs > 0))
        return vl_options_error("--resume %s runs a saved computation: no "
                                "program (FILE, -e or ARGS) goes with it",
                                o->resume);
    if (o->disassemble) {       /* one program file, listed, not run */
        const char *other = o->nexprs > 0 ? "-e"
                            : o->resume != NULL ? "--resume"
                            : o->autosave != NULL ? "--autosave"
                            : k < argc && strcmp(argv[k], "-") == 0
                            ? "- (standard input)" : NULL;
        if (other != NULL)
            return vl_options_error("--disassemble lists the bytecode of a "
                                    "program file: it takes no %s", other);
        if (k >= argc)
            return vl_options_error("option '%s' needs FILE", "--disassemble");
    }
    /* with -e, FILE is optional: a decimal real is a program argument */
    if (k < argc && (o->nexprs == 0 || !vl_options_is_decimal(argv[k])))
        o->file = argv[k++];
    o->args = argv + k;
    o->nargs = argc - k;
    for (int j = 0; j < o->nargs; j++)
        if (!vl_options_is_decimal(o->args[j]))
            return vl_options_error("program arguments must be decimal "
                                    "reals, got '%s'", o->args[j]);
    return VL_OPTIONS_RUN;
}

void vl_options_free(VlOptions *o)
{
    free(o->exprs);
    free(o->dirs);
    for (int j = 0; o->completed != NULL && j < o->ncompleted; j++)
        free(o->completed[j]);
    free(o->completed);
    free(o->autosave);
    o->autosave = NULL;
    o->exprs = NULL;
    o->dirs = NULL;
    o->completed = NULL;
}
