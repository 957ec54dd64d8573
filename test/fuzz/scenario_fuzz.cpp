// Scenario files, as `openloop run` and `openloop sweep` read them, with
// arbitrary text. Input: a byte choosing the command, then the file's text.
// Invariant: the file parses, or the parser throws usage_error (exit status
// 2, a message naming the command); no other exception escapes, none is
// swallowed into an accepted file that did not parse.

#include "fuzz_input.hpp"

#include "openloop/cli/run_command.hpp"
#include "openloop/cli/sweep_command.hpp"
#include "openloop/cli/usage.hpp"

#include <fstream>
#include <string>
#include <unistd.h>

namespace {

// The parser reads a path, so each input goes through one file per process.
const std::string& scenario_path() {
    static const std::string path = "/tmp/openloop-fuzz-scenario-" + std::to_string(::getpid()) + ".ini";
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    const bool sweep = (in.byte() & 1) != 0;
    const std::string_view text = in.rest();
    {
        std::ofstream out(scenario_path(), std::ios::binary | std::ios::trunc);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        FUZZ_CHECK(out.good());
    }
    const std::vector<std::string> args{scenario_path()};
    try {
        if (sweep)
            openloop::parse_sweep_command(args);
        else
            openloop::parse_run_command(args);
    } catch (const openloop::usage_error& e) {
        FUZZ_CHECK(std::string_view(e.what()).size() > 0);
    }
    return 0;
}
