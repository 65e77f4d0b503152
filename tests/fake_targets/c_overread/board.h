#ifndef BOARD_H
#define BOARD_H

#define N 9
#define MAXV 10   /* values 0..9 */

extern int board[N][N];

int load_board(void);      /* 0 ok, -1 bad input, -2 clash */
int solve_board(void);     /* 1 solved */
void print_board(void);
void make_puzzle(void);

#endif
