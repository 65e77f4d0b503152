/* board I/O, shared by the team's programs */
#include <stdlib.h>
#include <string.h>
#include "board.h"

#define LINE_LEN 64

/* 9 lines of 9 numbers; blank lines after them are fine */
int read_board(Board *b, FILE *in) {
    char *line = malloc(LINE_LEN);
    int r = 0;
    if (line == NULL)
        return -1;
    while (r < N && fgets(line, LINE_LEN, in) != NULL) {
        char *p = line, *end;
        for (int c = 0; c < N; c++) {
            long v = strtol(p, &end, 10);
            if (end == p)
                return -1;          /* not a number */
            b->cell[r][c] = (int)v;  /* range is checked later (main.c) */
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (*p != '\n' && *p != '\0')
            return -1;              /* too many numbers on the line */
        r++;
    }
    if (r < N)
        return -1;
    while (fgets(line, LINE_LEN, in) != NULL) {
        if (strspn(line, " \t\r\n") != strlen(line)) {
            free(line);
            return -1;
        }
    }
    free(line);
    return 0;
}

void print_board(const Board *b, FILE *out) {
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            fprintf(out, "%d%c", b->cell[r][c], c == N - 1 ? '\n' : ' ');
}
