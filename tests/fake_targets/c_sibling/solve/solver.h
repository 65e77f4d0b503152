#ifndef SOLVER_H
#define SOLVER_H

#include "board.h"

int count_solutions(Board *b, int limit, Board *first);  /* up to limit; the first one found in *first */
int solve_board(Board *b);                                /* 1 solved (in place), 0 no solution */
void make_puzzle(Board *b);                               /* unique, as many blanks as it can */

#endif
