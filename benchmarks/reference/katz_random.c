/* A plain C engine of Alles fuer die Katz, box rules, every seat playing `random`: the speed
 * reference of issue #25 (benchmarks/kernel_vs_c.py compiles and runs it).
 *
 * The rules are the defaults of `zoosim rules katz` (rule ids K-... of
 * seeds/alles-fuer-die-katz.md): 56 cards = 8 kinds (7 zoo kinds, then the cat)
 * x values 1..7, 7-card hands, a zoo of (8 - n) rows x 7 columns, 8 keepers, seat 0 starts,
 * no pass, keeper replacement on, blocked-cell rule `line_completion` (open only when nothing
 * fits, optional, keepers count as filling a line), covered cards do not block, cats block
 * cats, 7 = extra turn (chaining), 1 = skip the next turn, effects on every entry, immediate
 * end, minus-face scoring, shared wins, one round.
 *
 * `random` is uniform over the legal options of each decision, as zoosim's: an action is one
 * of (draw from a face-down cell) or (replace a bare keeper with a fitting hand card), one
 * option per (cell, card); a placement is one of the fitting hand cards, or when none fits the
 * cover options plus the bare keeper. A decision with one option draws no random number.
 * The random streams are this program's own (SplitMix64), so games are the same in
 * distribution, not game by game.
 *
 * Usage:
 *   katz_random records PLAYERS GAMES SEED      binary int16 records on stdout, RECORD_FIELDS
 *                                               per game (layout below)
 *   katz_random time PLAYERS BATCH REPEATS SEED plays REPEATS batches of BATCH games, writing
 *                                               their records into arrays as the kernel does;
 *                                               prints one line per batch: "cpu wall checksum"
 *                                               (this thread's CPU seconds, wall seconds)
 */
#define _POSIX_C_SOURCE 199309L  /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KINDS = 8, ZOO_KINDS = 7, VALUES = 7, DECK = KINDS * VALUES, HAND_SIZE = 7, COLS = 7,
       KEEPERS = 8, MAX_PLAYERS = 5, MAX_CELLS = DECK, MAX_OPTIONS = 512 };
enum { ALL_KINDS = (1 << KINDS) - 1 };
enum { FACE_DOWN, FACE_UP, KEEPER, KEEPER_OVER, GAP };
enum { END_NO_FACE_DOWN = 0, END_KEEPERS_EXHAUSTED = 1 };

/* One record per game, int16 each: the game fields, then score and win per seat 0..4. */
enum { R_TURNS, R_ROUNDS, R_END_REASON, R_DRAWS, R_REPLACEMENTS, R_KEEPERS_PLACED,
       R_COVERED_KEEPERS, R_EXTRA_TURNS, R_SKIPS_EARNED, R_SKIPS, R_NO_FIT_DRAWS,
       R_SCORE, R_WIN = R_SCORE + MAX_PLAYERS, RECORD_FIELDS = R_WIN + MAX_PLAYERS };

/* ---- SplitMix64 ---- */
static inline uint64_t next_u64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline int below(uint64_t *state, int n) { /* uniform in [0, n) */
    return (int)(((next_u64(state) >> 32) * (uint64_t)n) >> 32);
}

/* ---- one game ---- */
typedef struct {
    int players, rows, cells;
    int8_t state[MAX_CELLS];      /* FACE_DOWN ... GAP */
    int8_t card[MAX_CELLS];       /* the card lying in the cell (face down, face up, covered) */
    uint8_t face_up_kinds[16];    /* kind mask per line: rows 0..rows-1, then columns */
    int8_t face_down[16];         /* face-down cells per line */
    int8_t hand[MAX_PLAYERS][DECK];
    int hand_len[MAX_PLAYERS], skip_pending[MAX_PLAYERS];
    int face_down_total, supply, bare_keepers;
} Game;

static inline int kind_of(int card) { return card / VALUES; }
static inline int value_of(int card) { return card % VALUES + 1; }
static inline int row_line(const Game *g, int cell) { (void)g; return cell / COLS; }
static inline int column_line(const Game *g, int cell) { return g->rows + cell % COLS; }
static inline int cross_kinds(const Game *g, int cell) {
    return g->face_up_kinds[row_line(g, cell)] | g->face_up_kinds[column_line(g, cell)];
}

static void remove_card(Game *g, int seat, int slot) {
    g->hand[seat][slot] = g->hand[seat][--g->hand_len[seat]];
}

static void show(Game *g, int cell, int card) {
    g->state[cell] = FACE_UP;
    g->card[cell] = (int8_t)card;
    g->face_up_kinds[row_line(g, cell)] |= (uint8_t)(1 << kind_of(card));
    g->face_up_kinds[column_line(g, cell)] |= (uint8_t)(1 << kind_of(card));
}

static int hand_score(const int8_t *hand, int len) { /* K-4.2 */
    int top[KINDS], total[KINDS], score = 0;
    memset(top, 0, sizeof top);
    memset(total, 0, sizeof total);
    for (int i = 0; i < len; i++) {
        int kind = kind_of(hand[i]), value = value_of(hand[i]);
        total[kind] += value;
        if (value > top[kind]) top[kind] = value;
    }
    for (int kind = 0; kind < ZOO_KINDS; kind++) score += top[kind] - (total[kind] - top[kind]);
    return score - total[KINDS - 1];
}

static void play_game(int players, uint64_t *rng, int16_t *record) {
    Game g;
    int8_t deck[DECK];
    g.players = players;
    g.rows = 8 - players;
    g.cells = g.rows * COLS;
    for (int i = 0; i < DECK; i++) deck[i] = (int8_t)i;
    for (int i = DECK - 1; i > 0; i--) { /* Fisher-Yates */
        int j = below(rng, i + 1);
        int8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t;
    }
    for (int seat = 0; seat < players; seat++) {
        memcpy(g.hand[seat], deck + seat * HAND_SIZE, HAND_SIZE);
        g.hand_len[seat] = HAND_SIZE;
        g.skip_pending[seat] = 0;
    }
    for (int cell = 0; cell < g.cells; cell++) {
        g.state[cell] = FACE_DOWN;
        g.card[cell] = deck[players * HAND_SIZE + cell];
    }
    for (int line = 0; line < g.rows + COLS; line++) {
        g.face_up_kinds[line] = 0;
        g.face_down[line] = (int8_t)(line < g.rows ? COLS : g.rows);
    }
    g.face_down_total = g.cells;
    g.supply = KEEPERS;
    g.bare_keepers = 0;
    memset(record, 0, RECORD_FIELDS * sizeof *record);

    int options[MAX_OPTIONS];
    int seat = 0, new_seat_turn = 1, end_reason = -1;
    for (;;) {
        if (new_seat_turn) { /* K-3.6: a pending skip loses the whole turn */
            if (seat == 0) record[R_ROUNDS]++;
            if (g.skip_pending[seat]) {
                g.skip_pending[seat] = 0;
                record[R_SKIPS]++;
                seat = (seat + 1) % players;
                continue;
            }
        }
        /* the action: options are cell * 64 + (card + 1) for a replacement, cell * 64 for a draw */
        int count = 0;
        for (int cell = 0; cell < g.cells; cell++) {
            if (g.state[cell] == FACE_DOWN) {
                options[count++] = cell * 64;
            } else if (g.state[cell] == KEEPER) {
                int visible = cross_kinds(&g, cell);
                for (int slot = 0; slot < g.hand_len[seat]; slot++)
                    if (!((1 << kind_of(g.hand[seat][slot])) & visible))
                        options[count++] = cell * 64 + slot + 1;
            }
        }
        int option = options[count > 1 ? below(rng, count) : 0];
        int cell = option / 64, entered = -1;
        record[R_TURNS]++;
        if (option % 64) { /* K-3.4 replacement */
            int slot = option % 64 - 1;
            entered = g.hand[seat][slot];
            remove_card(&g, seat, slot);
            show(&g, cell, entered);
            g.supply++;
            g.bare_keepers--;
            record[R_REPLACEMENTS]++;
        } else { /* K-3.2.1 draw, then the placement */
            int row = row_line(&g, cell), column = column_line(&g, cell);
            g.hand[seat][g.hand_len[seat]++] = g.card[cell];
            g.state[cell] = GAP;
            g.face_down[row]--;
            g.face_down[column]--;
            g.face_down_total--;
            record[R_DRAWS]++;
            int visible = cross_kinds(&g, cell);
            count = 0; /* placement options: slot + 1 = place, -(slot + 1) = cover, 0 = keeper */
            for (int slot = 0; slot < g.hand_len[seat]; slot++)
                if (!((1 << kind_of(g.hand[seat][slot])) & visible)) options[count++] = slot + 1;
            if (count == 0) { /* K-3.3 line completion: cards new to a line this fills */
                record[R_NO_FIT_DRAWS]++;
                int eligible = 0;
                if (g.face_down[row] == 0) eligible |= ALL_KINDS & ~g.face_up_kinds[row];
                if (g.face_down[column] == 0) eligible |= ALL_KINDS & ~g.face_up_kinds[column];
                eligible &= visible;
                for (int slot = 0; slot < g.hand_len[seat]; slot++)
                    if ((1 << kind_of(g.hand[seat][slot])) & eligible) options[count++] = -(slot + 1);
                options[count++] = 0;
            }
            int placement = options[count > 1 ? below(rng, count) : 0];
            if (placement > 0) {
                entered = g.hand[seat][placement - 1];
                remove_card(&g, seat, placement - 1);
                show(&g, cell, entered);
            } else {
                if (placement < 0) {
                    entered = g.hand[seat][-placement - 1];
                    remove_card(&g, seat, -placement - 1);
                    g.state[cell] = KEEPER_OVER;
                    g.card[cell] = (int8_t)entered;
                    record[R_COVERED_KEEPERS]++;
                } else {
                    g.state[cell] = KEEPER;
                    g.bare_keepers++;
                    record[R_KEEPERS_PLACED]++;
                }
                g.supply--;
            }
        }
        int extra_turn = 0;
        if (entered >= 0) { /* K-3.5 value effects */
            if (value_of(entered) == 1) { g.skip_pending[seat] = 1; record[R_SKIPS_EARNED]++; }
            extra_turn = value_of(entered) == 7;
        }
        /* K-4.1: an end beats a pending extra turn */
        if (g.face_down_total == 0) { end_reason = END_NO_FACE_DOWN; break; }
        if (g.supply == 0) { end_reason = END_KEEPERS_EXHAUSTED; break; }
        if (extra_turn) {
            record[R_EXTRA_TURNS]++;
            new_seat_turn = 0;
        } else {
            seat = (seat + 1) % players;
            new_seat_turn = 1;
        }
    }
    record[R_END_REASON] = (int16_t)end_reason;
    int best = -10000;
    for (int s = 0; s < players; s++) {
        record[R_SCORE + s] = (int16_t)hand_score(g.hand[s], g.hand_len[s]);
        if (record[R_SCORE + s] > best) best = record[R_SCORE + s];
    }
    for (int s = 0; s < players; s++) record[R_WIN + s] = record[R_SCORE + s] == best;
}

static double seconds_of(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static int usage(void) {
    fputs("usage: katz_random records PLAYERS GAMES SEED | time PLAYERS BATCH REPEATS SEED\n", stderr);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    if (!strcmp(argv[1], "records") && argc == 5) {
        int players = atoi(argv[2]);
        long games = atol(argv[3]);
        uint64_t seeds = strtoull(argv[4], NULL, 10);
        if (players < 2 || players > MAX_PLAYERS || games < 0) return usage();
        int16_t record[RECORD_FIELDS];
        for (long i = 0; i < games; i++) {
            uint64_t rng = next_u64(&seeds); /* one game per seed */
            play_game(players, &rng, record);
            fwrite(record, sizeof record, 1, stdout);
        }
        return 0;
    }
    if (!strcmp(argv[1], "time") && argc == 6) {
        int players = atoi(argv[2]);
        long batch = atol(argv[3]);
        int repeats = atoi(argv[4]);
        uint64_t seeds = strtoull(argv[5], NULL, 10);
        if (players < 2 || players > MAX_PLAYERS || batch < 1 || repeats < 1) return usage();
        int16_t *records = malloc((size_t)batch * RECORD_FIELDS * sizeof *records);
        if (!records) return 1;
        for (int r = 0; r < repeats; r++) {
            double cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID), wall = seconds_of(CLOCK_MONOTONIC);
            for (long i = 0; i < batch; i++) {
                uint64_t rng = next_u64(&seeds); /* one game per seed */
                play_game(players, &rng, records + i * RECORD_FIELDS);
            }
            cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu;
            wall = seconds_of(CLOCK_MONOTONIC) - wall;
            long checksum = 0; /* the records are used, so the compiler keeps every game */
            for (long i = 0; i < batch; i++) checksum += records[i * RECORD_FIELDS + R_TURNS];
            printf("%.6f %.6f %ld\n", cpu, wall, checksum);
        }
        free(records);
        return 0;
    }
    return usage();
}
