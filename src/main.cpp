#include "openloop/cli/main.hpp"

int main(int argc, char** argv) { return openloop::cli_main(argc, argv); }
