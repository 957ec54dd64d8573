#include "openloop/load/calibration.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/calibration_cache.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/usage_calibration.hpp"
#include "openloop/tokenize/sentencepiece_counter.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace openloop {
namespace {

namespace json = boost::json;

// One answer through the dialect's calls (llama.cpp chat takes two); no count when none came.
tokenize_answer tokenize_with(tokenize_dialect d, const calibration_request& r, const http_post_fn& post,
                              std::string_view text) {
    http_call call = tokenize_call(d, r.root, r.model, text, r.chat, r.system_prompt);
    for (int step = 0; step < 2; ++step) {
        const auto [status, body] = post(call);
        tokenize_answer a = read_tokenize_answer(d, r.root, call, status, body, r.chat);
        if (a.count || !a.next) return a;
        call = std::move(*a.next);
    }
    return {};
}

std::optional<int> count_with(tokenize_dialect d, const calibration_request& r, const http_post_fn& post,
                              std::string_view text) {
    return tokenize_with(d, r, post, text).count;
}

// The server's tokens after a one-word content, from the ids of a few such
// prompts (0 when the server lists no ids).
int measure_trailing(tokenize_dialect d, const calibration_request& r, const http_post_fn& post) {
    const std::vector<std::int64_t> anchor = tokenize_with(d, r, post, vocab_word(0)).ids;
    int tail = max_trailing_tokens;
    for (std::size_t w = 1; w <= 3; ++w) tail = std::min(tail, trailing_tokens(anchor, tokenize_with(d, r, post, vocab_word(w)).ids));
    return tail;
}

// The first dialect whose endpoint counts a one-word text as a few tokens;
// unreachable says why when no call got an answer at all.
std::optional<tokenize_dialect> detect_dialect(const calibration_request& r, const http_post_fn& post,
                                               std::string& unreachable) {
    bool answered = false;
    for (const tokenize_dialect d : all_dialects) {
        std::optional<int> n;
        try {
            n = count_with(d, r, post, vocab_word(0));
            answered = true;
        } catch (const std::exception& e) {
            unreachable = e.what();  // a server that drops the connection on an unknown path offers nothing here
        }
        if (n && *n >= 1 && *n < 10'000) return d;
    }
    if (answered) unreachable.clear();
    return std::nullopt;
}

// llama.cpp lists the vocabulary size in its model metadata.
std::int64_t vocab_from_models(const std::string& body) {
    json::error_code ec;
    const json::value doc = json::parse(body, ec);
    if (ec || !doc.is_object()) return 0;
    const auto* data = doc.get_object().if_contains("data");
    if (!data || !data->is_array() || data->get_array().empty()) return 0;
    const auto* first = data->get_array()[0].if_object();
    const auto* meta = first ? first->if_contains("meta") : nullptr;
    const auto* n = meta && meta->is_object() ? meta->get_object().if_contains("n_vocab") : nullptr;
    return n && n->is_int64() ? n->get_int64() : 0;
}

// --tokenizer words: one token a word; a system prompt's words are what every first word carries.
prompt_builder words_builder(const calibration_request& r, std::string label) {
    if (!r.chat || r.system_prompt.empty()) return {};
    const int system = count_text_tokens(r.system_prompt);
    std::array<int, vocab_size_words> first{}, inner{};
    first.fill(1 + system);
    inner.fill(1);
    return prompt_builder::with_costs(first, inner, std::move(label)).with_system(system);
}

// auto's order once the server offers no tokenize endpoint: a local
// tokenizer, then the server's usage counts, then words with a warning.
calibration_result without_tokenize_endpoint(const calibration_request& r, const http_post_fn& post, const std::string& why) {
    std::string tried = why;
    if (r.local) {
        try {
            return local_costs(r, post);
        } catch (const input_error&) {
            throw;  // a broken file is not passed over
        } catch (const std::exception& e) {
            tried += "; " + std::string(e.what());
        }
    }
    try {
        calibration_result out = usage_costs(r, post);
        out.note = "openloop: " + why + "; counting with the server's usage instead\n" + out.note;
        return out;
    } catch (const std::exception& e) {
        tried += "; no usage counts either: " + std::string(e.what());
    }
    calibration_result out;
    out.label = "words (no tokenize endpoint, no usage counts)";
    out.builder = words_builder(r, out.label);
    out.note = "openloop: WARNING: " + tried + ". Prompts are one word per token (--tokenizer words), which real "
               "tokenizers count as 1.2-1.8 tokens: lengths will be off by that much. Give hf:PATH or tiktoken:FILE "
               "for exact lengths; the summary reports the server's counts beside the intended";
    return out;
}

calibration_result server_costs(const calibration_request& r, const http_post_fn& post, bool required) {
    calibration_result out;
    std::string unreachable;
    const auto dialect = detect_dialect(r, post, unreachable);
    if (!dialect) {
        const std::string why = unreachable.empty() ? "the target offers no tokenize endpoint (tried vLLM/SGLang, "
                                                      "llama.cpp and TGI shapes under '" + r.root + "/')"
                                                    : "no answer from the tokenize endpoint: " + unreachable;
        if (required)
            throw std::runtime_error("--tokenizer server: " + why +
                                     "; use --tokenizer usage, hf:PATH, tiktoken:FILE, ids (completions) or words");
        return without_tokenize_endpoint(r, post, why);
    }
    const token_counter count = [&](std::string_view text) { return count_with(*dialect, r, post, text); };
    out.label = "server (" + std::string(dialect_name(*dialect)) + (r.chat ? " chat template)" : " prompt)");
    const std::string path =
        r.cache_dir.empty() ? ""
                            : calibration_cache_path(r.cache_dir, dialect_name(*dialect), r.model, r.chat,
                                                     count(calibration_probe_text).value_or(-1), r.system_prompt);
    cached_or_measured(
        out, path, count, r.verify_samples, 2000,
        [&] { return calibrate(count, out.label).with_trailing(measure_trailing(*dialect, r, post)); }, r.say);
    calibration_request bare = r;
    bare.system_prompt.clear();
    out.builder =
        with_system_share(out.builder, r, [&](std::string_view text) { return count_with(*dialect, bare, post, text); });
    return out;
}

// What a check that still missed leaves: a label that never reads as exact, and a warning.
void call_inexact(calibration_result& out) {
    if (out.check.exact == out.check.samples) return;
    const std::string counted = std::to_string(out.check.exact) + " of " + std::to_string(out.check.samples) +
                                " sample prompts counted exactly (" + out.check.first_miss + ")";
    out.label += "; inexact: " + counted;
    out.note += "\nopenloop: WARNING: prompt lengths will not be exact: " + counted +
                "; the summary's tokenizer says so, and its length_fidelity gives the server's counts beside the "
                "intended";
}

calibration_result calibrate_choice(const calibration_request& r, const http_post_fn& post, const http_get_fn& get) {
    using kind = tokenizer_choice::kind;
    calibration_result out;
    switch (r.choice.type) {
    case kind::words:
        out.label = "words";
        out.builder = words_builder(r, out.label);
        return out;
    case kind::ids: {
        if (r.chat)
            throw std::runtime_error("--tokenizer ids sends token-id prompts, which only /v1/completions and "
                                     "/v1/embeddings take: add --endpoint completions (or embeddings)");
        std::int64_t vocab = r.vocab_size;
        if (vocab == 0) vocab = vocab_from_models(get(r.models_path));
        if (vocab == 0)
            throw std::runtime_error("--tokenizer ids: GET " + r.models_path +
                                     " does not give the vocabulary size; give --vocab-size N");
        out.builder = prompt_builder::with_ids(vocab);
        out.label = out.builder.label();
        return out;
    }
    case kind::sentencepiece: {
        const token_counter content = sentencepiece_counter(r.choice.model_file);
        // No template: a system prompt is its own tokens, without a BOS of its own.
        const int system = r.chat && !r.system_prompt.empty()
                               ? content(r.system_prompt).value_or(0) - content("").value_or(0)
                               : 0;
        const token_counter count = with_system_tokens(content, system);
        const std::string name = std::filesystem::path(r.choice.model_file).filename().string();
        out.label = "sentencepiece " + name + (r.chat ? " (content and BOS; no chat template)" : "");
        out.builder = calibrate(count, out.label).with_system(system);
        out.check = verify(out.builder, count, r.verify_samples, 1);
        return out;
    }
    case kind::hf:
    case kind::tiktoken: return local_costs(r, post);
    case kind::usage: return usage_costs(r, post);
    case kind::server: return server_costs(r, post, true);
    case kind::automatic: return server_costs(r, post, false);
    }
    return out;
}

}  // namespace

int trailing_tokens(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    // Equal lists cannot be ids of different words: a server that numbers its tokens 0..n-1.
    if (a.empty() || b.empty() || a == b) return 0;
    const std::size_t most = std::min(a.size(), b.size()) - 1;  // the content is at least one token
    std::size_t n = 0;
    while (n < most && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
    return static_cast<int>(std::min<std::size_t>(n, max_trailing_tokens));
}

std::string default_cache_dir() {
    if (const char* d = std::getenv("OPENLOOP_CACHE_DIR"); d && *d) return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/openloop";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/openloop";
    return {};
}

prompt_builder with_system_share(const prompt_builder& b, const calibration_request& r, const token_counter& bare) {
    if (!r.chat || r.system_prompt.empty() || b.type() != prompt_builder::kind::costs) return b;
    const auto without = bare(vocab_word(0));
    if (!without) throw std::runtime_error("--system-prompt: no count for a prompt without it");
    return b.with_system(b.first()[0] - *without);
}

token_counter with_system_tokens(token_counter count, int system_tokens) {
    if (system_tokens == 0) return count;
    return [count = std::move(count), system_tokens](std::string_view text) -> std::optional<int> {
        const auto n = count(text);
        return n ? std::optional<int>(*n + system_tokens) : std::nullopt;
    };
}

calibration_result calibrate_tokenizer(const calibration_request& r, const http_post_fn& post, const http_get_fn& get) {
    calibration_result out = calibrate_choice(r, post, get);
    call_inexact(out);
    return out;
}

}  // namespace openloop
