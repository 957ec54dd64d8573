#pragma once
// Word costs measured against a server, kept between runs: measuring them
// takes 129 calls, checking a cached set 8. A cache belongs to one way of
// counting (a tokenize dialect, or the server's usage), one model, chat or
// text prompts, and the server's count of a probe text, so one model name
// served with another tokenizer gets a cache of its own.

#include "openloop/load/calibration.hpp"
#include "openloop/load/prompt_builder.hpp"

#include <functional>

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// The file for these keys under dir; a system prompt (--system-prompt, empty:
// none) is a key too, its text and not only its count.
std::string calibration_cache_path(const std::string& dir, std::string_view source, const std::string& model, bool chat,
                                   int fingerprint, std::string_view system_prompt = {});

// The text whose count is the fingerprint: subword splits and digits tell tokenizers apart.
inline constexpr std::string_view calibration_probe_text =
    "Calibrating openloop: a probe of subword splits, 12345 characterisation.";

// nullopt when the file is missing or unreadable: a bad cache is measured
// again, not fatal; why then says what was wrong (empty when it is missing).
std::optional<prompt_builder> load_cached_calibration(const std::string& path, std::string& why);

// Writes atomically; a failure is appended to note, not thrown (the run goes on).
void store_cached_calibration(const std::string& path, const prompt_builder& b, std::string& note);

// Word costs for out.label: those cached at path (empty: no cache) while its
// samples (up to `longest` tokens) still count exactly through count, else
// measure()'s, stored there.
// Sets out's builder, check, from_cache and note (the stderr line). A cache
// set aside is named with the reason through say, before measuring again.
void cached_or_measured(calibration_result& out, const std::string& path, const token_counter& count, int samples,
                        int longest, const std::function<prompt_builder()>& measure,
                        const std::function<void(const std::string&)>& say);

// "openloop: tokenizer LABEL<how>: 7 of 8 sample prompts counted exactly by the server (the first miss)".
std::string calibration_note(const std::string& label, std::string_view how, const calibration_check& check);

}  // namespace openloop
