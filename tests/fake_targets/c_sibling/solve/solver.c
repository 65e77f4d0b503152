/* singles first (naked and hidden), then guess on the cell with fewest candidates */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "solver.h"

static int shuffle = 0;   /* try digits in random order (to make a full grid) */

static int bit(int v) { return v >= 1 && v <= 9 ? 1 << v : 0; }

static int candidates(const Board *b, int r, int c) {
    int used = 0;
    for (int k = 0; k < N; k++) {
        used |= bit(b->cell[r][k]) | bit(b->cell[k][c]);
        used |= bit(b->cell[r / 3 * 3 + k / 3][c / 3 * 3 + k % 3]);
    }
    return ~used & 0x3fe;
}

static int ones(int m) { int n = 0; while (m) { n += m & 1; m >>= 1; } return n; }
static int lowest(int m) { int v = 1; while (!(m & (1 << v))) v++; return v; }

static void unit_cell(int u, int k, int *r, int *c) {
    if (u < 9) { *r = u; *c = k; }
    else if (u < 18) { *r = k; *c = u - 9; }
    else { *r = (u - 18) / 3 * 3 + k / 3; *c = (u - 18) % 3 * 3 + k % 3; }
}

/* 0 when a cell has no candidate or a digit has no place left */
static int propagate(Board *b) {
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int r = 0; r < N; r++)
            for (int c = 0; c < N; c++)
                if (b->cell[r][c] == 0) {
                    int m = candidates(b, r, c);
                    if (m == 0) return 0;
                    if (ones(m) == 1) { b->cell[r][c] = lowest(m); changed = 1; }
                }
        for (int u = 0; u < 27; u++)
            for (int d = 1; d <= 9; d++) {
                int places = 0, pr = 0, pc = 0, here = 0;
                for (int k = 0; k < N; k++) {
                    int r, c;
                    unit_cell(u, k, &r, &c);
                    if (b->cell[r][c] == d) here = 1;
                    else if (b->cell[r][c] == 0 && (candidates(b, r, c) & (1 << d))) { places++; pr = r; pc = c; }
                }
                if (here) continue;
                if (places == 0) return 0;
                if (places == 1) { b->cell[pr][pc] = d; changed = 1; }
            }
    }
    return 1;
}

static int search(Board *b, int limit, int *count, Board *first) {
    if (!propagate(b)) return 0;
    int br = -1, bc = -1, best = 10;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            if (b->cell[r][c] == 0) {
                int n = ones(candidates(b, r, c));
                if (n < best) { best = n; br = r; bc = c; }
            }
    if (br < 0) {
        if (++*count == 1 && first) *first = *b;
        return *count >= limit;
    }
    int order[9], m = candidates(b, br, bc), n = 0;
    for (int v = 1; v <= 9; v++) if (m & (1 << v)) order[n++] = v;
    for (int i = n - 1; shuffle && i > 0; i--) { int j = rand() % (i + 1), t = order[i]; order[i] = order[j]; order[j] = t; }
    for (int i = 0; i < n; i++) {
        Board next = *b;
        next.cell[br][bc] = order[i];
        if (search(&next, limit, count, first)) return 1;
    }
    return 0;
}

int count_solutions(Board *b, int limit, Board *first) {
    Board work = *b;
    int count = 0;
    search(&work, limit, &count, first);
    return count;
}

int solve_board(Board *b) {
    return count_solutions(b, 1, b) == 1;
}

void make_puzzle(Board *b) {
    int order[N * N];
    srand((unsigned)time(NULL) ^ (unsigned)getpid() << 8);
    memset(b, 0, sizeof *b);
    shuffle = 1;
    solve_board(b);
    shuffle = 0;
    for (int i = 0; i < N * N; i++) order[i] = i;
    for (int i = N * N - 1; i > 0; i--) { int j = rand() % (i + 1), t = order[i]; order[i] = order[j]; order[j] = t; }
    for (int i = 0; i < N * N; i++) {
        int r = order[i] / N, c = order[i] % N, keep = b->cell[r][c];
        b->cell[r][c] = 0;
        if (count_solutions(b, 2, NULL) != 1) b->cell[r][c] = keep;
    }
}
