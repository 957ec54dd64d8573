#include "openloop/run/endpoint.hpp"

namespace openloop {

std::optional<endpoint_kind> parse_endpoint(std::string_view name) {
    for (endpoint_kind e : {endpoint_kind::chat, endpoint_kind::completions, endpoint_kind::responses,
                            endpoint_kind::embeddings, endpoint_kind::transcriptions})
        if (to_string(e) == name) return e;
    return std::nullopt;
}

std::string_view to_string(endpoint_kind endpoint) {
    switch (endpoint) {
        case endpoint_kind::chat: return "chat";
        case endpoint_kind::completions: return "completions";
        case endpoint_kind::responses: return "responses";
        case endpoint_kind::embeddings: return "embeddings";
        case endpoint_kind::transcriptions: return "transcriptions";
    }
    return {};
}

std::string_view endpoint_path(endpoint_kind endpoint) {
    switch (endpoint) {
        case endpoint_kind::chat: return "/chat/completions";
        case endpoint_kind::completions: return "/completions";
        case endpoint_kind::responses: return "/responses";
        case endpoint_kind::embeddings: return "/embeddings";
        case endpoint_kind::transcriptions: return "/audio/transcriptions";
    }
    return {};
}

}  // namespace openloop
