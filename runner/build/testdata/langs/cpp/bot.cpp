#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    for (size_t i = 0; i < args.size(); i++)
        std::cout << (i ? " " : "") << args[i];
    std::cout << std::endl;
}
