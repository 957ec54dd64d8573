// Writes the fuzz targets' seed corpora, OUT/<target>/, from the recorded
// vLLM, llama.cpp and simulator streams, the shipped trace slices, the
// shipped scenarios, request bodies in the shapes clients send, the recorded
// /metrics texts, a soak's windows.jsonl and the golden requests.jsonl. Each seed
// starts with the control bytes its target reads first.
// Usage: fuzz_seeds OUT SOURCE_DIR

#include "recorded_streams.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out) throw std::runtime_error("cannot write seed " + (dir / name).string());
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The first lines of a file: enough for every row shape, small enough to mutate.
std::string head(const std::string& text, int lines) {
    std::size_t end = 0;
    for (int i = 0; i < lines; ++i) {
        end = text.find('\n', end);
        if (end == std::string::npos) return text;
        ++end;
    }
    return text.substr(0, end);
}

std::string bytes(std::initializer_list<unsigned char> control) { return std::string(control.begin(), control.end()); }

// Each event's data, as the chunk decoder receives it.
std::vector<std::string> payloads(const std::string& stream) {
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos < stream.size();) {
        std::size_t end = stream.find("\n\n", pos);
        if (end == std::string::npos) end = stream.size();
        std::string event = stream.substr(pos, end - pos);
        // After the event line a Responses stream names each event with.
        if (const auto data = event.find("data: "); data != std::string::npos) out.push_back(event.substr(data + 6));
        pos = end + 2;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc != 3) {
        std::cerr << "usage: fuzz_seeds OUT SOURCE_DIR\n";
        return 2;
    }
    const fs::path out = argv[1];
    const fs::path src = argv[2];

    std::vector<std::pair<std::string, std::string>> streams{
        {"vllm_chat", recorded::vllm_chat},
        {"vllm_completions", recorded::vllm_completions},
        {"llama_server", recorded::llama_server},
        {"sim_usage_in_last_chunk", recorded::sim_usage_in_last_chunk},
        {"sim_comments_no_done", recorded::sim_comments_no_done},
        {"sim_firehose_no_usage", recorded::sim_firehose_no_usage},
        {"with_fields", recorded::with_fields},
        {"vllm_error_mid_stream", recorded::vllm_error_mid_stream},
        {"sim_bad_chunk", recorded::sim_bad_chunk},
        {"vllm_responses", recorded::vllm_responses},
        {"openai_responses_incomplete", recorded::openai_responses_incomplete},
        {"responses_failed", recorded::responses_failed},
        {"responses_error_event", recorded::responses_error_event},
    };
    // Thinking models' and tool calls' streams, kept as files.
    for (const char* name : {"vllm_reasoning", "vllm_reasoning_content", "sglang_reasoning_content", "vllm_reasoning_cut",
                             "vllm_tool_calls", "openai_responses_reasoning", "sglang_thinking_and_answer_chunk",
                             "llamacpp_think_tags", "gateway_think_tags_split"})
        streams.emplace_back(name, read(src / "test/data/streams" / (std::string(name) + ".sse")));
    for (const auto& [name, body] : streams) {
        // sse: default limit, whole / bytewise / 7-byte pieces; and a small limit.
        write(out / "sse", name, bytes({0, 0}) + body);
        write(out / "sse", name + "-7", bytes({0, 7}) + body);
        write(out / "sse", name + "-small", bytes({140, 31}) + body);
        // response_reader: 200 clean, sliced, torn by the transport, and a 500.
        write(out / "response_reader", name, bytes({0, 0, 0}) + body);
        write(out / "response_reader", name + "-13", bytes({0, 0, 13}) + body);
        write(out / "response_reader", name + "-torn", bytes({0, 130, 5}) + body);
        write(out / "response_reader", name + "-500", bytes({161, 0, 3}) + body);
        int i = 0;
        for (const auto& p : payloads(body)) write(out / "chunk", name + "-" + std::to_string(i++), p);
    }
    // response_reader in JSON mode (transport byte 64): whole answers, sliced and torn.
    const std::vector<std::pair<std::string, std::string>> bodies{
        {"json_chat", R"({"object":"chat.completion","choices":[{"message":{"content":"hi there"},"finish_reason":"stop"}],)"
                      R"("usage":{"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":4}}})"},
        {"json_embedding", R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2]}],)"
                           R"("usage":{"prompt_tokens":3,"total_tokens":3}})"},
        {"json_error", R"({"object":"error","message":"overloaded","code":503})"},
        {"json_reasoning_tool_call",
         R"({"object":"chat.completion","choices":[{"message":{"content":null,"reasoning":"Look it up.","tool_calls":)"
         R"([{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"q\":\"x\"}"}}]},)"
         R"("finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":12,)"
         R"("completion_tokens_details":{"reasoning_tokens":4}}})"},
        {"json_response", R"({"object":"response","status":"completed","error":null,"output":[{"type":"reasoning",)"
                          R"("content":[{"type":"reasoning_text","text":"hm"}]},{"type":"message","content":[{"type":)"
                          R"("output_text","text":"hi there"}]}],"usage":{"input_tokens":5,"output_tokens":4,)"
                          R"("input_tokens_details":{"cached_tokens":4}}})"},
    };
    for (const auto& [name, body] : bodies) {
        write(out / "response_reader", name, bytes({0, 64, 0}) + body);
        write(out / "response_reader", name + "-13", bytes({0, 64, 13}) + body);
        write(out / "response_reader", name + "-torn", bytes({0, 195, 5}) + body);
    }
    write(out / "sse", "crlf-bom", bytes({0, 3}) + "\xEF\xBB\xBF" "event: x\r\nid: 1\r\nretry: 50\r\n: hi\r\ndata: a\r\ndata: b\r\n\r\n");

    const fs::path traces = src / "test/data/traces";
    const std::string mooncake = head(read(traces / "mooncake-conversation/conversation_trace.first600s.jsonl"), 12);
    const std::string azure = head(read(traces / "azure-conv-2023/AzureLLMInferenceTrace_conv.first2000.csv"), 12);
    const std::string burstgpt =
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\r\n"
        "5,ChatGPT,472,18,490,Conversation log\r\n5.25,GPT-4,1000,0,1000,API log\r\n7.000000001,ChatGPT,3,9,12,Conversation log";
    const std::string log = head(read(src / "test/data/golden/requests.jsonl"), 4);
    const std::vector<std::pair<std::string, std::string>> trace_seeds{
        {"mooncake", mooncake}, {"azure", azure}, {"burstgpt", burstgpt}, {"openloop", log}};
    unsigned char format = 1;  // trace_fuzz's order: auto, mooncake, azure, burstgpt, openloop
    for (const auto& [name, text] : trace_seeds) {
        write(out / "trace", name + "-auto", bytes({0, 0}) + text);
        write(out / "trace", name + "-forced", bytes({format++, 3}) + text);
        write(out / "trace", name + "-skip-select", bytes({0, 0x2b}) + text);
    }
    // Mappings (format 5): a delimiter byte, the --trace-columns spec, then the file.
    write(out / "trace", "columns-mooncake",
          bytes({5, 3, 0}) + "time=timestamp:ms,input=input_length,output=output_length,prefix=hash_ids\n" + mooncake);
    write(out / "trace", "columns-azure", bytes({5, 0, 1}) + "time=TIMESTAMP:iso,input=ContextTokens,output=GeneratedTokens\n" + azure);
    write(out / "trace", "columns-csv", bytes({5, 1, 2}) +
          "time=t,prompt=p,output=o,session=s,prefix=h\n"
          "t;p;o;s;h\r\n1.2345678901234567e3;\"a \"\"b\"\"; c\";5;x;\"1|2\"\r\n0.30000000000000004;\"two\nlines\";3;y;");
    write(out / "trace", "columns-jsonl", bytes({5, 0x2b, 0}) + "time=ts:iso,input=u.in,output=u.out\n"
          "{\"ts\": \"2024-05-01T14:00:00.5+02:00\", \"u\": {\"in\": 3, \"out\": 1.0}}\n"
          "{\"ts\": \"2024-05-01 12:00:01\", \"u\": {\"in\": 4e0, \"out\": 2}}");

    // windows_jsonl: a real soak's rows with warm-up 0..3, and torn last lines.
    const std::string windows = read(src / "test/data/soak/windows.jsonl");
    for (unsigned char warmup = 0; warmup < 4; ++warmup)
        write(out / "windows_jsonl", "soak-" + std::to_string(warmup), bytes({warmup}) + windows);
    write(out / "windows_jsonl", "soak-torn", bytes({2}) + windows.substr(0, windows.size() - 40));
    // request_log: the golden log (warm-up and measured requests), whole and torn.
    const std::string golden_log = read(src / "test/data/golden/requests.jsonl");
    write(out / "request_log", "golden", golden_log);
    write(out / "request_log", "golden-head", head(golden_log, 8));
    write(out / "request_log", "golden-torn", golden_log.substr(0, golden_log.size() - 100));
    // A thinking model's line and a tool call's: their first answer, split and flags.
    write(out / "request_log", "reasoning",
          R"({"id":"r-0","index":0,"warmup":false,"status":"ok","error":null,"http_status":200,"intended_ns":1000,)"
          R"("sent_ns":1100,"headers_ns":2000,"first_token_ns":3000,"first_answer_ns":9000,"last_token_ns":12000,)"
          R"("end_ns":12100,"input_tokens":64,"prompt_tokens":64,"max_tokens":16,"output_tokens":16,)"
          R"("output_tokens_source":"usage","chunks":16,"cached_tokens":0,"lag_ms":0.0001,"ttft_ms":0.002,)"
          R"("ttfa_ms":0.008,"tpot_ms":0.0006,"e2e_ms":0.011,"reasoning_ms":0.006,"reasoning_tokens":16,)"
          R"("answer_tokens":0,"reasoning_source":"usage","ended_thinking":true,"retried":false,"connect_ms":null})"
          "\n"
          R"({"id":"r-1","index":1,"warmup":false,"status":"ok","error":null,"http_status":200,"intended_ns":2000,)"
          R"("sent_ns":2100,"headers_ns":3000,"first_token_ns":4000,"first_answer_ns":4000,"last_token_ns":5000,)"
          R"("end_ns":5100,"input_tokens":64,"prompt_tokens":80,"max_tokens":16,"output_tokens":9,)"
          R"("output_tokens_source":"usage","chunks":5,"cached_tokens":64,"reasoning_ms":null,"reasoning_tokens":0,)"
          R"("answer_tokens":9,"reasoning_source":"none","tool_call":true,"retried":false,"connect_ms":null})"
          "\n");

    for (const auto& entry : fs::directory_iterator(src / "scenarios")) {
        const std::string text = read(entry.path());
        write(out / "scenario", "run-" + entry.path().filename().string(), bytes({0}) + text);
        write(out / "scenario", "sweep-" + entry.path().filename().string(), bytes({1}) + text);
    }

    const std::vector<std::pair<std::string, std::string>> requests{
        {"completion", R"({"model":"openloop-sim","prompt":"one two three","max_tokens":32,"stream":true,)"
                       R"("stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true})"},
        {"completion-ids", R"({"prompt":[1,2,3,4],"max_tokens":8,"min_tokens":2,"temperature":0.7,"seed":42})"},
        {"chat", R"({"model":"openloop-sim","messages":[{"role":"system","content":"be brief"},)"
                 R"({"role":"user","content":[{"type":"text","text":"a b c"}]}],"max_completion_tokens":16,"stream":true})"},
        {"bad", R"({"prompt":"a","max_tokens":-1})"},
        // An agent's step: tools, the call it made sent back, the tool's result; thinking switched off.
        {"agent", R"({"model":"openloop-sim","messages":[{"role":"user","content":"find x"},{"role":"assistant",)"
                  R"("content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"tool_0",)"
                  R"("arguments":"{\"query\":\"x y\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x is 1"}],)"
                  R"("tools":[{"type":"function","function":{"name":"tool_0","description":"looks up","parameters":)"
                  R"({"type":"object","properties":{"query":{"type":"string"}}}}}],"tool_choice":"auto",)"
                  R"("chat_template_kwargs":{"enable_thinking":false},"max_tokens":16,"stream":true})"},
        // A multimodal chat: a PNG's and a JPEG's headers, and a short WAV clip.
        {"media", R"({"model":"openloop-sim","messages":[{"role":"user","content":[{"type":"text","text":"what is this"},)"
                  R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAjAAAAB4CAYAAADsZchH"}},)"
                  R"({"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQEAYABgAAD/wAARCAJYAgADASIAAhEBAxEB"}},)"
                  R"({"type":"input_audio","input_audio":{"format":"wav","data":"UklGRkQAAABXQVZFZm10IBAAAAABAAEAgD4AAAB9AAACABAA)"
                  R"(ZGF0YSAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="}}]}],"max_tokens":8})"},
    };
    for (const auto& [name, body] : requests) {
        write(out / "openai_api", name + "-completions", bytes({0}) + body);
        write(out / "openai_api", name + "-chat", bytes({1}) + body);
    }
    // A transcription form (the target reads it with boundary B): the same short WAV clip.
    const std::string clip("RIFFD\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x80>\0\0\0}\0\0\x02\0\x10\0data \0\0\0", 44);
    write(out / "openai_api", "transcription-form",
          bytes({0}) + "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c.wav\"\r\n\r\n" + clip +
              std::string(32, '\0') + "\r\n--B\r\nContent-Disposition: form-data; name=\"stream\"\r\n\r\ntrue\r\n--B--\r\n");
    for (const auto& entry : fs::directory_iterator(src / "test/data/metrics")) {
        if (entry.path().extension() != ".txt") continue;
        const std::string text = read(entry.path());
        const std::string name = entry.path().stem().string();
        write(out / "prometheus_text", name, bytes({0}) + text);
        write(out / "prometheus_text", name + "-cut", bytes({128}) + text);
    }
    write(out / "prometheus_text", "escapes",
          bytes({90}) + "# HELP m a\\\\b\\nc\n# TYPE m histogram\n"
                        R"(m_bucket{le="+Inf",p="x\\\"y\n,}",} 3 1700000000)" "\r\n"
                        "m_sum NaN\nm_count -Inf\n# EOF\n");
    // A tokenizer.json, NUL, the text it encodes (hf_tokenizer); text alone
    // for the fixed byte-level tokenizer.
    const std::string byte_level_json =
        R"({"added_tokens": [{"id": 9, "content": "<|x|>", "special": true, "lstrip": true}],)"
        R"("pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\p{L}+|\\s+"},)"
        R"("behavior": "Isolated"}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},)"
        R"("post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|x|>"}}, {"Sequence": {"id": "A"}}]},)"
        R"("decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "Ġ": 4,)"
        R"("he": 5, "ll": 6, "hell": 7, "hello": 8}, "merges": ["h e", "l l", "he ll", ["hell", "o"]]}})";
    const std::string sentencepiece_json =
        R"({"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Prepend", "prepend": "▁"},)"
        R"({"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}, "pre_tokenizer": {"type": "Metaspace",)"
        R"("replacement": "▁", "prepend_scheme": "first"}, "decoder": {"type": "Sequence", "decoders": [{"type": "Replace",)"
        R"("pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}]},)"
        R"("model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true, "vocab": {"<unk>": 0,)"
        R"("<0xC3>": 1, "<0xA9>": 2, "▁": 3, "a": 4, "▁a": 5}, "merges": ["▁ a"]}})";
    const std::string text = "hello <|x|> héllo  a\n\n\t\xff 12345 日本 😀";
    write(out / "hf_tokenizer", "byte_level", byte_level_json + std::string(1, '\0') + text);
    write(out / "hf_tokenizer", "sentencepiece", sentencepiece_json + std::string(1, '\0') + text);
    write(out / "byte_level_bpe", "mixed", text + " <|end|> the <tag> there's 'S");
    return 0;
} catch (const std::exception& e) {
    std::cerr << "fuzz_seeds: " << e.what() << '\n';
    return 1;
}
