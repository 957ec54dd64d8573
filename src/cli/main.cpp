#include "openloop/cli/main.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/cli/compare_command.hpp"
#include "openloop/cli/merge_command.hpp"
#include "openloop/cli/report_command.hpp"
#include "openloop/cli/run_command.hpp"
#include "openloop/cli/sim_command.hpp"
#include "openloop/cli/soak_command.hpp"
#include "openloop/cli/tokenize_command.hpp"
#include "openloop/cli/sweep_command.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/cli/vllm_command.hpp"
#include "openloop/cli/vllm_flags.hpp"

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace openloop {

namespace {

constexpr const char* top_usage = R"(openloop - open-loop load generator for OpenAI-compatible LLM inference servers

Usage: openloop <command> [options]

Commands:
  sweep    find the knee: open-loop stages at rising rates, SLO and saturation knees, capacity report
  run      benchmark a server on an open-loop arrival schedule (or closed loop with --concurrency)
  soak     run for hours at production rate: per-window rows, server signals, growth and drift verdicts
  report   rebuild the summary of a run or soak that was killed, from what it left on disk
  merge    combine runs (shards of one run, or repeats) into one result, exactly
  compare  two runs metric by metric: change, 99 % interval, better/worse/within noise; --fail-on gates
  sim      run the built-in inference-engine simulator (an OpenAI-compatible server)
  tokenize the ids a local tokenizer (hf:tokenizer.json, tiktoken:FILE) gives a text
  help     show this text; `openloop <command> --help` shows a command's options

A `vllm bench serve` command line works with `openloop` in its place (no command: flags only), e.g.
  openloop --model M --dataset-name random --random-input-len 512 --request-rate 10 --num-prompts 200
(docs/from-vllm-bench.md: every flag understood, and where the numbers differ).

Options:
  --version  print the version
)";

std::vector<std::string> strings(int argc, char** argv, int from) {
    return std::vector<std::string>(argv + from, argv + argc);
}

}  // namespace

int cli_main(int argc, char** argv) {
    const std::string command = argc > 1 ? argv[1] : "help";
    try {
        if (command == "help" || command == "--help" || command == "-h") {
            std::cout << top_usage;
            return 0;
        }
        if (command == "--version") {
            std::cout << "openloop " << OPENLOOP_VERSION << "\n";
            return 0;
        }
        if (looks_like_vllm_args(strings(argc, argv, 1))) return vllm_main(strings(argc, argv, 1));
        if (command == "run") return run_main(strings(argc, argv, 2));
        if (command == "sweep") return sweep_main(strings(argc, argv, 2));
        if (command == "sim") return sim_main(strings(argc, argv, 2));
        if (command == "soak") return soak_main(strings(argc, argv, 2));
        if (command == "report") return report_main(strings(argc, argv, 2));
        if (command == "merge") return merge_main(strings(argc, argv, 2));
        if (command == "compare") return compare_main(strings(argc, argv, 2));
        if (command == "tokenize") return tokenize_main(strings(argc, argv, 2));
        std::cerr << "openloop: unknown command '" << command << "'\n\n" << top_usage;
        return 2;
    } catch (const usage_error& e) {
        std::cerr << "openloop: " << e.what() << "\n";
        return 2;
    } catch (const input_error& e) {
        // A prompts file, trace or other input found bad once the run had begun.
        std::cerr << "openloop: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "openloop: error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace openloop
