#include "openloop/measure/jsonl_file.hpp"

#include <stdexcept>

namespace openloop {

void jsonl_file::open(const std::string& path) {
    path_ = path;
    out_.open(path_);
}

void jsonl_file::write(std::string_view line) {
    if (out_.is_open()) out_.write(line.data(), static_cast<std::streamsize>(line.size()));
}

void jsonl_file::flush() {
    if (out_.is_open()) out_.flush();
}

void jsonl_file::check() {
    if (!out_.is_open()) return;
    out_.flush();
    if (!out_) throw std::runtime_error("writing " + path_ + " failed");
}

void jsonl_file::close() {
    if (out_.is_open()) out_.close();
}

}  // namespace openloop
