#ifndef BOARD_H
#define BOARD_H

#include <stdio.h>

#define N 9

typedef struct {
    int cell[N][N];   /* 0 = blank */
} Board;

int read_board(Board *b, FILE *in);          /* 0 ok, -1 bad input */
void print_board(const Board *b, FILE *out);

#endif
