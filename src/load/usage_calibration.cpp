#include "openloop/load/usage_calibration.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/calibration_cache.hpp"
#include "openloop/load/usage_probe.hpp"

#include <stdexcept>

namespace openloop {
namespace {

// The server's count of a prompt whose content is text; throws with the probe's problem.
int server_count(const calibration_request& r, const http_post_fn& post, std::string_view text) {
    const http_call call = usage_probe_call(r.api_base, r.model, text, r.chat, r.extra_body, r.system_prompt);
    const auto [status, body] = post(call);
    const usage_answer a = read_usage_answer(status, body);
    if (!a.prompt_tokens) throw std::runtime_error("POST " + call.path + " with max_tokens 1: " + a.problem);
    return *a.prompt_tokens;
}

// b's system prompt share, the server's usage counting without it.
prompt_builder with_usage_system_share(const prompt_builder& b, const calibration_request& r, const http_post_fn& post) {
    calibration_request bare = r;
    bare.system_prompt.clear();
    return with_system_share(b, r,
                             [&](std::string_view text) -> std::optional<int> { return server_count(bare, post, text); });
}

bool missed(const calibration_check& c) { return c.exact < c.samples; }

// b with each vocabulary word's cost as a prompt's first word measured in
// place, by the server: a template that writes the content right after its
// own text ("User:" + content) merges the first word with it on byte-level
// BPE, by a cost that depends on the word. Later words follow a space.
prompt_builder first_words_in_place(const prompt_builder& b, const calibration_request& r, const http_post_fn& post,
                                    std::string label) {
    std::array<int, vocab_size_words> first{};
    for (std::size_t i = 0; i < vocab_size_words; ++i) first[i] = server_count(r, post, vocab_word(i));
    return prompt_builder::with_costs(first, b.inner(), std::move(label));
}

}  // namespace

calibration_result usage_costs(const calibration_request& r, const http_post_fn& post) {
    calibration_result out;
    out.label = std::string("usage (the server's prompt_tokens") + (r.chat ? ", chat template included)" : ")");
    const token_counter count = [&](std::string_view text) -> std::optional<int> { return server_count(r, post, text); };
    const int fingerprint = server_count(r, post, calibration_probe_text);
    const std::string path = r.cache_dir.empty()
                                 ? ""
                                 : calibration_cache_path(r.cache_dir, "usage", r.model, r.chat, fingerprint, r.system_prompt);
    cached_or_measured(
        out, path, count, r.verify_samples, usage_check_longest,
        [&] {
            r.say("openloop: --tokenizer usage: measuring word costs from the server's usage.prompt_tokens: " +
                  std::to_string(usage_probe_requests - 1) + " requests of max_tokens 1 before the run" +
                  (path.empty() ? std::string() : ", cached for later runs"));
            return calibrate(count, out.label);
        },
        r.say);
    out.builder = with_usage_system_share(out.builder, r, post);
    return out;
}

calibration_result local_costs(const calibration_request& r, const http_post_fn& post) {
    if (!r.local) throw std::logic_error("local_costs: no local tokenizer loaded");
    const local_tokenizer& tok = *r.local;
    // A completion prompt gets what the post-processor adds (BOS); a chat
    // prompt's specials come from its template, which the probes measure.
    const auto local_count = [&](std::string_view text) {
        return static_cast<int>(tok.encode(text, !r.chat).size());
    };
    calibration_result out;
    out.label = tok.description();
    // A word the tokenizer gives no token (an empty vocabulary, a normalizer that erases the
    // text) leaves no way to build a prompt of a given length: the file is bad input.
    for (std::size_t w = 0; w < vocab_size_words; ++w)
        if (tok.encode(vocab_word(w), false).empty())
            throw input_error("--tokenizer " + out.label + ": \"" + std::string(vocab_word(w)) +
                              "\" is 0 tokens: a tokenizer that gives a word no token cannot build prompts");
    // Two contents of different lengths: the same difference means the server
    // adds a constant around the content, as a template does.
    std::string longer;
    append_words(longer, 48, 7);
    std::optional<int> short_added, long_added;
    std::string why_not;
    try {
        short_added = server_count(r, post, vocab_word(0)) - local_count(vocab_word(0));
        long_added = server_count(r, post, longer) - local_count(longer);
    } catch (const input_error&) {
        throw;  // the local file's fault, not the server's
    } catch (const std::exception& e) {
        why_not = e.what();
    }
    const auto not_the_servers = [&] {
        return std::runtime_error("--tokenizer " + out.label + ": the server counts " +
                                  std::to_string(*long_added + local_count(longer)) + " tokens for a prompt it counts as " +
                                  std::to_string(local_count(longer)) + ", and " + std::to_string(*short_added) +
                                  " more than it for a one-word prompt: is it the served model's tokenizer?");
    };
    if (why_not.empty() && *short_added < 0) throw not_the_servers();
    if (!why_not.empty()) {
        // No template to learn: a system prompt is its own tokens, counted here.
        const int system = r.chat && !r.system_prompt.empty() ? local_count(r.system_prompt) : 0;
        const token_counter count = with_system_tokens(local_count, system);
        if (r.chat) out.label += " (no chat template)";
        out.builder = calibrate(count, out.label).with_system(system);
        out.check = verify(out.builder, count, r.verify_samples, 1);
        out.note = "openloop: tokenizer " + out.label + ": the server's usage gives no count (" + why_not + "), so " +
                   (r.chat ? "the chat template's tokens are not counted" : "lengths are the local tokenizer's count") +
                   "; the summary reports the server's counts beside them";
        return out;
    }
    const int added = *short_added;
    const token_counter count = [&](std::string_view text) -> std::optional<int> { return local_count(text) + added; };
    const token_counter server = [&](std::string_view text) -> std::optional<int> { return server_count(r, post, text); };
    const bool constant = *short_added == *long_added;
    const std::string description = out.label;
    if (r.chat)
        out.label += " + " + std::to_string(added) + " chat template" +
                     (r.system_prompt.empty() ? "" : " and system prompt") + " tokens from the server's usage";
    out.builder = calibrate(count, out.label);
    if (constant) out.check = verify(out.builder, server, r.verify_samples, 1, usage_check_longest);
    if (!constant || missed(out.check)) {
        r.say("openloop: tokenizer " + out.label + ": " +
              (constant ? std::to_string(out.check.exact) + " of " + std::to_string(out.check.samples) +
                              " sample prompts counted exactly (" + out.check.first_miss + ")"
                        : "a one-word prompt and a long one gain different counts around their content") +
              "; measuring each vocabulary word's cost as a prompt's first word from the server's usage: " +
              std::to_string(vocab_size_words) + " requests of max_tokens 1");
        out.label = description + " + the chat template and first words' costs from the server's usage";
        out.builder = first_words_in_place(out.builder, r, post, out.label);
        out.check = verify(out.builder, server, r.verify_samples, 1, usage_check_longest);
        if (missed(out.check)) {
            if (!constant) throw not_the_servers();
            calibration_result usage = usage_costs(r, post);
            usage.note = "openloop: tokenizer " + out.label + ": " + std::to_string(out.check.exact) + " of " +
                         std::to_string(out.check.samples) + " sample prompts counted exactly (" +
                         out.check.first_miss + "); counting with the server's usage instead\n" + usage.note;
            return usage;
        }
    }
    out.builder = with_usage_system_share(out.builder, r, post);
    out.note = calibration_note(out.label, "", out.check);
    return out;
}

}  // namespace openloop
