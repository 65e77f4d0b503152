#include <stdio.h>
#include <string.h>
#include "board.h"

int main(int argc, char *argv[]) {
    if (argc != 2) {
        printf("Usage: ./sudoku create|solve\n");
        return 1;
    }
    if (strcmp(argv[1], "create") == 0) {
        make_puzzle();
        print_board();
        return 0;
    }
    if (strcmp(argv[1], "solve") == 0) {
        int ok = load_board();
        if (ok == -1) {
            printf("Invalid input!\n");
            return 1;
        }
        if (ok == -2 || !solve_board()) {
            printf("No solutions found.\n");
            return 1;
        }
        print_board();
        return 0;
    }
    printf("Unknown command %s\n", argv[1]);
    return 1;
}
