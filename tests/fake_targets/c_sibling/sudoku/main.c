#include <stdio.h>
#include <string.h>
#include "board.h"
#include "solver.h"

/* no digit twice in a row, column or box */
static int givens_ok(const Board *b) {
    for (int u = 0; u < 27; u++) {
        int found[10];
        memset(found, 0, sizeof found);
        for (int k = 0; k < N; k++) {
            int r = u < 9 ? u : u < 18 ? k : (u - 18) / 3 * 3 + k / 3;
            int c = u < 9 ? k : u < 18 ? u - 9 : (u - 18) % 3 * 3 + k % 3;
            int v = b->cell[r][c];
            if (v != 0 && found[v]++ > 0)
                return 0;
        }
    }
    return 1;
}

static int in_range(const Board *b) {
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            if (b->cell[r][c] < 0 || b->cell[r][c] > 9)
                return 0;
    return 1;
}

int main(int argc, char *argv[]) {
    Board b;
    if (argc != 2) {
        fprintf(stderr, "Usage: ./sudoku create|solve\n");
        return 2;
    }
    if (strcmp(argv[1], "create") == 0) {
        make_puzzle(&b);
        print_board(&b, stdout);
        return 0;
    }
    if (strcmp(argv[1], "solve") != 0) {
        fprintf(stderr, "Usage: ./sudoku create|solve\n");
        return 2;
    }
    if (read_board(&b, stdin) != 0) {
        fprintf(stderr, "Invalid input\n");
        return 2;
    }
    if (!givens_ok(&b) || !in_range(&b)) {   /* TODO range first? */
        fprintf(stderr, "Invalid puzzle\n");
        return 1;
    }
    if (!solve_board(&b)) {
        fprintf(stderr, "No solution\n");
        return 1;
    }
    print_board(&b, stdout);
    return 0;
}
