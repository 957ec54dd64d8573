#include "openloop/cli/target_options.hpp"

#include "openloop/cli/usage.hpp"
#include "openloop/wire/connector.hpp"
#include "openloop/wire/target.hpp"

#include <boost/program_options.hpp>

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

namespace po = boost::program_options;

namespace {

// RFC 9110: a header name is one token.
bool token_char(unsigned char c) {
    return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// A header value may hold visible characters, blanks and tabs; a CR, LF or
// other control character would end the header line and inject another.
bool field_value_ok(std::string_view v) {
    for (unsigned char c : v)
        if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
    return true;
}

// text with control characters spelled \xNN, for a message.
std::string printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
        if (c >= 0x20 && c != 0x7f) {
            out.push_back(static_cast<char>(c));
        } else {
            constexpr char hex[] = "0123456789abcdef";
            out.append("\\x").push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out;
}

}  // namespace

bool secret_header(std::string name) {
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* s : {"authorization", "key", "token", "secret", "cookie", "password"})
        if (name.find(s) != std::string::npos) return true;
    return false;
}

po::options_description target_options() {
    po::options_description target("Target", help_width, help_width / 2);
    target.add_options()
        ("target", po::value<std::string>()->default_value("sim:cpu-small"),
         "server to load: the API base URL (http(s)://HOST:PORT[/v1]; /v1 is assumed when no path is given), "
         "or sim:PRESET to start the built-in simulator (h100-8b, cpu-small, firehose) for the run")
        ("model", po::value<std::string>(),
         "model name, or a weighted mix of models behind the one endpoint: NAME=WEIGHT,... (a name alone weighs "
         "1; weights are normalized), e.g. base=0.5,sql-lora=0.3,chat-lora=0.2. Each request's model follows from "
         "its index and --seed, so shards and reruns agree; a session keeps one model. Default: the first id that "
         "GET /v1/models lists")
        ("header", po::value<std::vector<std::string>>()->composing(), "extra request header 'Name: value' (repeatable)")
        ("api-key-env", po::value<std::string>()->default_value("OPENAI_API_KEY"),
         "environment variable holding the API key, sent as a Bearer token; the key is never printed or written")
        ("ca-file", po::value<std::string>(), "PEM file of CA certificates to verify the server with")
        ("insecure", po::bool_switch(), "do not verify the server certificate or host name (prints a warning)")
        ("request-id-prefix", po::value<std::string>()->default_value("openloop-"), "x-request-id prefix; the request index follows")
        ("sim-arg", po::value<std::vector<std::string>>()->composing(),
         "argument passed to the simulator of a sim: target, e.g. --sim-arg=--fault-500=0.01 (repeatable)");
    return target;
}

void fill_target(const po::variables_map& vm, run_command& cmd) {
    auto& o = cmd.options;
    cmd.target = vm["target"].as<std::string>();
    // A sim:PRESET target gets its URL when the simulator has started (resolve_target).
    if (cmd.target.rfind("sim:", 0) != 0) {
        try {
            o.target = parse_target_url(cmd.target);
        } catch (const std::invalid_argument& e) {
            throw usage_error(e.what());
        }
    }
    o.target_label = cmd.target;
    if (vm.count("model")) {
        o.models = model_mix::parse(vm["model"].as<std::string>());
        o.model = o.models.name(0);  // the setup calls (tokenizer, tools' length) ask with it
    }
    if (vm.count("header")) {
        for (const auto& h : vm["header"].as<std::vector<std::string>>()) {
            const auto colon = h.find(':');
            if (colon == std::string::npos || colon == 0)
                throw usage_error("--header must look like 'Name: value'");
            const std::string name = h.substr(0, colon);
            for (unsigned char c : name)
                if (!token_char(c))
                    throw usage_error("--header '" + printable(name) + "': a header name is letters, digits and "
                                      "!#$%&'*+-.^_`|~ only");
            std::string value = h.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            // The value may be a secret: the message names only the header.
            if (!field_value_ok(value))
                throw usage_error("--header " + name + ": the value holds a CR, LF or other control character");
            o.headers.emplace_back(name, value);
        }
    }
    o.api_key_env = vm["api-key-env"].as<std::string>();
    if (const char* key = std::getenv(o.api_key_env.c_str()); key && !field_value_ok(key))
        throw usage_error("--api-key-env " + o.api_key_env + ": the key holds a CR, LF or other control character");
    if (vm.count("ca-file")) {
        o.ca_file = vm["ca-file"].as<std::string>();
        // Read now, as every other input file is: refused before a simulator
        // starts or the server is asked anything, and whatever the scheme.
        boost::asio::ssl::context ctx(boost::asio::ssl::context::tls_client);
        load_ca_file(ctx, o.ca_file);
    }
    o.insecure = vm["insecure"].as<bool>();
    o.request_id_prefix = vm["request-id-prefix"].as<std::string>();
    if (!field_value_ok(o.request_id_prefix))
        // Named, never echoed: like any header value it may be meant to stay private.
        throw usage_error("--request-id-prefix: a header value may not hold a CR, LF or other control character");
    if (vm.count("sim-arg")) cmd.sim_args = vm["sim-arg"].as<std::vector<std::string>>();
}

}  // namespace openloop
