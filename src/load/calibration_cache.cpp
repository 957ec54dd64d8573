#include "openloop/load/calibration_cache.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace openloop {

namespace json = boost::json;

std::string calibration_cache_path(const std::string& dir, std::string_view source, const std::string& model, bool chat,
                                   int fingerprint, std::string_view system_prompt) {
    std::string material = std::string(source) + '\n' + model + '\n' + (chat ? "chat" : "text") + '\n' +
                           std::to_string(fingerprint) + '\n';
    for (std::size_t i = 0; i < vocab_size_words; ++i) material.append(vocab_word(i)).push_back(' ');
    // Without one, the material is what it was before the flag: older caches still serve.
    if (!system_prompt.empty()) material.append("\nsystem\n").append(system_prompt);
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
    for (unsigned char c : material) h = (h ^ c) * 0x100000001b3ULL;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return (std::filesystem::path(dir) / ("tokenizer-" + std::string(hex) + ".json")).string();
}

std::optional<prompt_builder> load_cached_calibration(const std::string& path, std::string& why) {
    why.clear();
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    json::error_code ec;
    const json::value v = json::parse(text.str(), ec);
    if (ec || !v.is_object()) {
        why = ec ? "not JSON (" + ec.message() + ")" : "not a JSON object";
        return std::nullopt;
    }
    try {
        return prompt_builder::from_json(v.get_object());
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

void store_cached_calibration(const std::string& path, const prompt_builder& b, std::string& note) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << json::serialize(b.to_json()) << '\n';
        if (!out) {
            note += " (could not write the cache in " + dir + ")";
            return;
        }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) note += " (could not write the cache in " + dir + ": " + ec.message() + ")";
}

void cached_or_measured(calibration_result& out, const std::string& path, const token_counter& count, int samples,
                        int longest, const std::function<prompt_builder()>& measure,
                        const std::function<void(const std::string&)>& say) {
    if (!path.empty()) {
        std::string why;
        if (auto cached = load_cached_calibration(path, why)) {
            out.builder = std::move(*cached);
            out.check = verify(out.builder, count, samples, 1, longest);
            out.from_cache = out.check.exact == out.check.samples;
            if (!out.from_cache)
                why = std::to_string(out.check.exact) + " of " + std::to_string(out.check.samples) +
                      " sample prompts counted exactly (" + out.check.first_miss + ")";
        }
        if (!why.empty())
            say("openloop: tokenizer " + out.label + ": the cached costs in " + path + " were set aside: " + why +
                "; measuring them again");
    }
    if (!out.from_cache) {
        out.builder = measure();
        out.check = verify(out.builder, count, samples, 1, longest);
        if (!path.empty()) store_cached_calibration(path, out.builder, out.note);
    }
    out.note = calibration_note(out.label, out.from_cache ? ", cached" : ", calibrated", out.check) + out.note;
}

std::string calibration_note(const std::string& label, std::string_view how, const calibration_check& check) {
    std::string out = "openloop: tokenizer " + label + std::string(how) + ": " + std::to_string(check.exact) + " of " +
                      std::to_string(check.samples) + " sample prompts counted exactly by the server";
    if (!check.first_miss.empty()) out += " (" + check.first_miss + ")";
    return out;
}

}  // namespace openloop
