#pragma once
// A golden test's files: what it produced compared byte for byte with the
// recorded file, or recorded again with OPENLOOP_RECORD_GOLDEN=1 (a change that
// is meant, reviewed as a diff).

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace golden {

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline void compare_or_record(const std::filesystem::path& dir, const std::string& name, const std::string& produced) {
    const auto path = dir / name;
    if (std::getenv("OPENLOOP_RECORD_GOLDEN") != nullptr) {
        std::filesystem::create_directories(dir);
        std::ofstream(path, std::ios::binary) << produced;
        BOOST_TEST_MESSAGE("recorded " << path);
        return;
    }
    BOOST_TEST_REQUIRE(std::filesystem::exists(path), "missing " << path);
    BOOST_TEST(produced == slurp(path), name << " differs from " << path);
}

}  // namespace golden
