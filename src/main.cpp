#include <cstdio>
int main() { std::puts("openloop: under construction"); return 0; }
