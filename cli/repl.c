/*
 * cli/repl.c -- the interactive REPL (the only file using readline)
 *
 * Lines are accumulated until they form complete top-level forms (the
 * evaluator answers VLAD_ERR_INCOMPLETE otherwise; the continuation prompt
 * shows how many parentheses are open), then evaluated with their values
 * printed.  An error is printed and the loop goes on with every
 * definition made so far intact.  A line starting with a comma is a
 * command (cli/meta.c).
 *
 * Readline is driven through its callback interface from a pselect()
 * loop, so that signals are handled here and nowhere else: Ctrl-C at the
 * prompt drops the line (and the unfinished form), a resized terminal is
 * measured again, and during an evaluation Ctrl-C suspends it
 * (cli/session.c).  The history (~/.vlad_history or $VLAD_HISTORY, at
 * most HISTORY_MAX entries) is read at the start and appended to at the
 * end; a history file that cannot be read or written is only warned
 * about.  Tab completes bound names, special-form keywords and commands.
 * Built without readline, lines are read plainly.
 */
#include "config.h"
#include "cli/repl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include "cli/input.h"
#include "cli/meta.h"
#include "cli/output.h"
#include "cli/signals.h"

#ifdef HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

#define HISTORY_MAX 1000

/* What one read of a line gave. */
typedef enum { READ_LINE, READ_EOF, READ_INTERRUPT } ReadStatus;

const char *vl_repl_line_editing(void)
{
#ifdef HAVE_READLINE
    static char text[64];
    snprintf(text, sizeof text, "GNU readline %d.%d", RL_VERSION_MAJOR,
             RL_VERSION_MINOR);
    return text;
#else
    return "none (built without readline)";
#endif
}

/* ===== Reading lines ===== */

#ifdef HAVE_READLINE

static char *got_line;
static int got;

/* readline's input: a SIGINT ends the wait for a key (vl_signals_read)
   with C-@ (set-mark), which does nothing that matters, and read_line
   then drops the line. */
static int getc_or_interrupt(FILE *in)
{
    unsigned char c;
    ssize_t n = vl_signals_read(fileno(in), &c, 1);
    return n == 1 ? c : n == -2 ? 0 : EOF;
}

static void on_line(char *line)
{
    got_line = line;
    got = 1;
    rl_callback_handler_remove();   /* no new prompt until we ask */
}

/* Ctrl-C at the prompt: show it, drop the line, leave readline. */
static void abandon_line(void)
{
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_point = rl_end;
    rl_redisplay();                 /* the cursor after the text */
    fputs("^C", rl_outstream);
    rl_replace_line("", 1);
    rl_callback_handler_remove();
    fputc('\n', rl_outstream);
    fflush(rl_outstream);
    using_history();                /* Up starts from the newest again */
}

/* Read a line after showing 'prompt'.  A Ctrl-C noted before the call
   counts only when 'keep_sigint' (an unfinished form is being continued);
   otherwise it was meant for the evaluation that just ended. */
static ReadStatus read_line(const char *prompt, char **out, int keep_sigint)
{
    sigset_t block, orig;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGWINCH);
    got = 0;
    got_line = NULL;
    if (!keep_sigint)
        vl_signals_take_sigint();
    rl_callback_handler_install(prompt, on_line);
    int fd = fileno(rl_instream);
    ReadStatus rs = READ_LINE;
    sigprocmask(SIG_BLOCK, &block, &orig);
    while (!got) {
        if (vl_signals_take_winch()) {
            sigprocmask(SIG_SETMASK, &orig, NULL);
            rl_resize_terminal();
            sigprocmask(SIG_BLOCK, &block, NULL);
            continue;
        }
        if (vl_signals_take_sigint()) {
            sigprocmask(SIG_SETMASK, &orig, NULL);
            abandon_line();
            return READ_INTERRUPT;
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        /* the signals are let in only while waiting: none is missed */
        int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &orig);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rl_callback_handler_remove();
            rs = READ_EOF;
            break;
        }
        sigprocmask(SIG_SETMASK, &orig, NULL);
        rl_callback_read_char();
        sigprocmask(SIG_BLOCK, &block, NULL);
    }
    sigprocmask(SIG_SETMASK, &orig, NULL);
    if (rs == READ_LINE && got_line == NULL)
        rs = READ_EOF;
    *out = got_line;
    return rs;
}

#else /* plain lines */

/* One byte of standard input: 0..255, EOF, or -2 for a Ctrl-C.  Bytes
   are read after a pselect() that lets the signals in, like readline's
   loop above, so a Ctrl-C just before the wait is not missed, and with
   vl_signals_read, so one just before the read is not either.
   On a terminal in canonical mode a read returns at most one line, so
   nothing beyond the current line is ever held here. */
static int get_byte(void)
{
    static unsigned char buf[4096];
    static size_t pos, len;
    if (pos < len)
        return buf[pos++];
    sigset_t block, orig;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGWINCH);
    sigprocmask(SIG_BLOCK, &block, &orig);
    int c = EOF;
    for (;;) {
        vl_signals_take_winch();
        if (vl_signals_take_sigint()) {
            c = -2;
            break;
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(STDIN_FILENO, &fds);
        int r = pselect(STDIN_FILENO + 1, &fds, NULL, NULL, NULL, &orig);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        sigprocmask(SIG_SETMASK, &orig, NULL);
        ssize_t n = vl_signals_read(STDIN_FILENO, buf, sizeof buf);
        sigprocmask(SIG_BLOCK, &block, NULL);
        if (n == -2)
            continue;           /* the Ctrl-C, seen at the top */
        if (n > 0) {
            pos = 1;
            len = (size_t)n;
            c = buf[0];
        }
        break;
    }
    sigprocmask(SIG_SETMASK, &orig, NULL);
    return c;
}

static ReadStatus read_line(const char *prompt, char **out, int keep_sigint)
{
    fputs(prompt, stdout);
    fflush(stdout);
    if (!keep_sigint)
        vl_signals_take_sigint();
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    *out = NULL;
    if (buf == NULL)
        return READ_EOF;
    for (;;) {
        int c = get_byte();
        if (c == -2) {
            free(buf);
            putchar('\n');         /* the terminal has echoed "^C" */
            return READ_INTERRUPT;
        }
        if (c == EOF || c == '\n') {
            if (c == EOF && n == 0) {
                free(buf);
                return READ_EOF;
            }
            break;
        }
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL) {
                free(buf);
                return READ_EOF;
            }
            buf = nb;
        }
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    *out = buf;
    return READ_LINE;
}

#endif

/* ===== History ===== */

#ifdef HAVE_READLINE

static char history_path[4096];
static int history_save;        /* the file may be appended to */
static int history_added;       /* entries added in this session */

/* Where the history lives: $VLAD_HISTORY ("" for none), else
   $HOME/.vlad_history, else nowhere. */
static void history_open(void)
{
    const char *env = getenv("VLAD_HISTORY");
    const char *home = getenv("HOME");
    history_path[0] = '\0';
    if (env != NULL)
        snprintf(history_path, sizeof history_path, "%s", env);
    else if (home != NULL && home[0] != '\0')
        snprintf(history_path, sizeof history_path, "%s/.vlad_history",
                 home);
    stifle_history(HISTORY_MAX);
    if (history_path[0] == '\0')
        return;
    int e = read_history(history_path);
    if (e != 0 && e != ENOENT) {
        fprintf(stderr, "vlad: warning: cannot read the history file %s: "
                        "%s; this session's history will not be saved\n",
                history_path, strerror(e));
        return;
    }
    history_save = 1;
}

static void history_add(const char *text)
{
    char *entry = vl_input_history_entry(text);
    if (entry == NULL)
        return;
    HIST_ENTRY *last = history_get(history_base + history_length - 1);
    if (last == NULL || strcmp(last->line, entry) != 0) {
        add_history(entry);
        history_added++;
    }
    free(entry);
}

static void history_close(void)
{
    if (!history_save || history_added == 0)
        return;
    int n = history_added < history_length ? history_added : history_length;
    int e = access(history_path, F_OK) == 0
        ? append_history(n, history_path) : write_history(history_path);
    if (e != 0)
        fprintf(stderr, "vlad: warning: cannot save the history to %s: %s\n",
                history_path, strerror(e));
    else
        history_truncate_file(history_path, HISTORY_MAX);
}

#else

static void history_open(void) {}
static void history_add(const char *text) { (void)text; }
static void history_close(void) {}

#endif

/* ===== Completion ===== */

#ifdef HAVE_READLINE

static VlSession *session;      /* the REPL's, for completion */
static int at_first_line;       /* the line being read starts an input */

static struct {
    char **v;
    size_t n, cap, next;
} cands;

static void cand_add(const char *name)
{
    if (cands.n == cands.cap) {
        size_t cap = cands.cap ? cands.cap * 2 : 256;
        char **v = realloc(cands.v, cap * sizeof *v);
        if (v == NULL)
            return;
        cands.v = v;
        cands.cap = cap;
    }
    char *copy = strdup(name);
    if (copy != NULL)
        cands.v[cands.n++] = copy;
}

static void cand_clear(void)
{
    for (size_t j = 0; j < cands.n; j++)
        free(cands.v[j]);
    cands.n = cands.next = 0;
}

static void collect_global(void *ud, const char *name, int user)
{
    (void)ud, (void)user;
    cand_add(name);
}

/* The rl_completion_matches generator over 'cands'. */
static char *cand_next(const char *text, int state)
{
    size_t len = strlen(text);
    if (state == 0)
        cands.next = 0;
    while (cands.next < cands.n) {
        const char *c = cands.v[cands.next++];
        if (strncmp(c, text, len) == 0)
            return strdup(c);
    }
    return NULL;
}

static char **complete_names(const char *text)
{
    cand_clear();
    for (int j = 0; vl_meta_keyword(j) != NULL; j++)
        cand_add(vl_meta_keyword(j));
    vlad_globals(session->S, collect_global, NULL);
    return rl_completion_matches(text, cand_next);
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;       /* no file names by default */
    const char *line = rl_line_buffer;
    size_t ws = strspn(line, " \t");
    if (!at_first_line || line[ws] != ',')
        return complete_names(text);
    size_t we = ws + strcspn(line + ws, " \t");
    cand_clear();
    if ((size_t)start <= ws) {
        for (int j = 0; vl_meta_name(j) != NULL; j++)
            cand_add(vl_meta_name(j));
        return rl_completion_matches(text, cand_next);
    }
    /* the argument of a command (a unique prefix names it) */
    const char *name = NULL;
    for (int j = 0; vl_meta_name(j) != NULL; j++)
        if (strncmp(vl_meta_name(j), line + ws, we - ws) == 0) {
            if (name != NULL)
                return NULL;
            name = vl_meta_name(j);
        }
    if (name == NULL)
        return NULL;
    if (strcmp(name, ",time") == 0)
        return complete_names(text);
    int files = 0;
    for (int j = 0; vl_meta_arg_word(name, j, &files) != NULL; j++)
        cand_add(vl_meta_arg_word(name, j, &files));
    if (files) {
        rl_attempted_completion_over = 0;   /* readline's file names */
        return NULL;
    }
    return rl_completion_matches(text, cand_next);
}

/* ===== Matching parentheses ===== */

static const char *form_so_far;  /* the earlier lines of the input */

#define BLINK_USEC 500000       /* readline's blink-matching-paren time */

/* ) and ] with blink-matching-paren on.  A parenthesis opened on this
   line is shown by readline (its cursor jumps there for a moment); one
   opened on an earlier line of the form, which readline cannot reach,
   is shown for the same moment in place of the prompt, as
   "[3: (define (f x)] ", its line number and text. */
static int insert_close(int count, int key)
{
    const char *blink = rl_variable_value("blink-matching-paren");
    size_t before = form_so_far != NULL ? strlen(form_so_far) : 0;
    if (rl_explicit_arg || before == 0 || blink == NULL
        || strcmp(blink, "on") != 0)
        return rl_insert_close(count, key);
    char *text = malloc(before + (size_t)rl_point + 1);
    if (text == NULL)
        return rl_insert_close(count, key);
    memcpy(text, form_so_far, before);
    memcpy(text + before, rl_line_buffer, (size_t)rl_point);
    text[before + (size_t)rl_point] = '\0';
    const char *open = vl_input_opener(text);
    if (open == NULL || open >= text + before) {
        free(text);
        return rl_insert_close(count, key);
    }
    int line = 1;
    const char *start = text;
    for (const char *p = text; p < open; p++)
        if (*p == '\n') {
            line++;
            start = p + 1;
        }
    int len = (int)strcspn(start, "\n");
    rl_insert(count, key);
    rl_save_prompt();
    rl_message("[%d: %.*s%s] ", line, len > 40 ? 40 : len, start,
               len > 40 ? "..." : "");
    free(text);
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(fileno(rl_instream), &fds);
    struct timeval tv = {0, BLINK_USEC};
    select(fileno(rl_instream) + 1, &fds, NULL, NULL, &tv);
    rl_restore_prompt();
    rl_clear_message();
    return 0;
}

static void readline_open(VlSession *s)
{
    static char breaks[] = " \t\n\"'`()[];";
    session = s;
    rl_readline_name = "vlad";
    rl_catch_signals = 0;           /* cli/signals.c handles them */
    rl_catch_sigwinch = 0;
    rl_getc_function = getc_or_interrupt;
    rl_change_environment = 0;      /* no LINES and COLUMNS */
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = breaks;
    /* a typed ) or ] briefly shows its ( or [ (off in ~/.inputrc with
       "set blink-matching-paren off") */
    rl_variable_bind("blink-matching-paren", "on");
    rl_bind_key(')', insert_close);
    rl_bind_key(']', insert_close);
    rl_bind_key_in_map(')', insert_close, vi_insertion_keymap);
    rl_bind_key_in_map(']', insert_close, vi_insertion_keymap);
}

static void readline_close(void)
{
    cand_clear();
    free(cands.v);
    cands.v = NULL;
    cands.cap = 0;
}

#else

static int at_first_line;
static void readline_open(VlSession *s) { (void)s; }
static void readline_close(void) {}

#endif

/* ===== The loop ===== */

typedef struct Input {
    char *text;
    size_t len, cap;
} Input;

static int input_add(Input *in, const char *line)
{
    size_t n = strlen(line);
    if (in->len + n + 2 > in->cap) {
        size_t cap = in->cap ? in->cap : 1024;
        while (in->len + n + 2 > cap)
            cap *= 2;
        char *t = realloc(in->text, cap);
        if (t == NULL)
            return 0;
        in->text = t;
        in->cap = cap;
    }
    memcpy(in->text + in->len, line, n);
    in->len += n;
    in->text[in->len++] = '\n';
    in->text[in->len] = '\0';
    return 1;
}

static void input_clear(Input *in)
{
    in->len = 0;
    if (in->text != NULL)
        in->text[0] = '\0';
}

int vl_repl_run(VlSession *s)
{
    if (!s->quiet)
        printf("vlad %s -- ,help lists the commands, Ctrl-D exits\n",
               VLAD_VERSION);
    readline_open(s);
    history_open();
    vl_signals_install();
    Input in = {NULL, 0, 0};
    if (!input_add(&in, ""))
        return 1;
    input_clear(&in);
    while (!s->quit && vl_output_error() == 0) {
        char prompt[32];
        vl_input_prompt(prompt, sizeof prompt, in.text);
        at_first_line = in.len == 0;
#ifdef HAVE_READLINE
        form_so_far = in.text;
#endif
        fflush(stdout);
        fflush(stderr);
        char *line;
        ReadStatus rs = read_line(prompt, &line, !at_first_line);
        if (rs == READ_INTERRUPT) {
            input_clear(&in);
            continue;
        }
        if (rs == READ_EOF) {
            putchar('\n');
            if (vl_meta_is_command(in.text))
                fprintf(stderr, "end of input inside the expression of "
                                ",time\n");
            else if (!vl_input_blank(in.text))
                vl_session_eval(s, in.text, "<repl>", 0);
            break;
        }
        if (!at_first_line && vl_meta_is_command(line)
            && !vl_meta_is_command(in.text)) {
            VlScan sc;
            vl_input_scan(in.text, &sc);
            if (!sc.in_string && !sc.in_comment) {
                /* ",quit" under "(define (f x)": not text of the form */
                fprintf(stderr, "a command cannot be given inside an "
                        "unfinished form (%d open parenthes%s): finish the "
                        "form, or Ctrl-C to discard it\n", sc.depth,
                        sc.depth == 1 ? "is" : "es");
                free(line);
                continue;
            }
        }
        int ok = input_add(&in, line);
        free(line);
        if (!ok)
            break;
        if (in.len == 1 || vl_input_blank(in.text)) {
            if (at_first_line)
                input_clear(&in);       /* an empty line: nothing to do */
            continue;
        }
        int done;
        if (vl_meta_leave(s, in.text))
            done = 1;
        else if (vl_meta_is_command(in.text))
            done = vl_meta_run(s, in.text) == VL_META_DONE;
        else
            done = vl_session_eval(s, in.text, "<repl>",
                                   VL_EVAL_QUIET_INCOMPLETE)
                   != VLAD_ERR_INCOMPLETE;
        if (s->incomplete_interrupted) {
            /* Ctrl-C right after Enter on an unfinished form */
            s->incomplete_interrupted = 0;
            putchar('\n');
            input_clear(&in);
            continue;
        }
        if (done) {
            history_add(in.text);
            input_clear(&in);
        }
    }
    fflush(stdout);
    history_close();
    vl_signals_restore();
    readline_close();
    free(in.text);
    /* a write error on standard output outranks the status (exit N) asked */
    return vl_output_error() != 0 ? 1 : s->exit_status;
}
