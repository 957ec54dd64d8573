#include "openloop/cli/result_dir.hpp"

#include "openloop/cli/usage.hpp"

#include <fstream>
#include <sstream>

namespace openloop {

namespace fs = std::filesystem;

std::string read_result_file(const fs::path& path, std::string_view command) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw usage_error(std::string(command) + ": cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void require_request_log(const fs::path& dir, std::string_view command) {
    const std::string c(command);
    if (!fs::is_directory(dir)) throw usage_error(c + ": " + dir.string() + " is not a directory");
    if (fs::exists(dir / "sweep.json"))
        throw usage_error(c + ": " + dir.string() + " is a sweep; give one of its stages (" + (dir / "stage-1").string() +
                          "...)");
    if (!fs::exists(dir / "requests.jsonl"))
        throw usage_error(c + ": " + (dir / "requests.jsonl").string() +
                          " is missing: not an openloop run's result directory");
}

}  // namespace openloop
