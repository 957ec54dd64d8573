#pragma once
// Command line: `openloop <command> [options]`. Every option of run and sweep
// can also live in a scenario file (Program_options config syntax); the
// command line wins.

namespace openloop {

// The whole program: dispatches on the command word. Returns the exit status.
int cli_main(int argc, char** argv);

}  // namespace openloop
