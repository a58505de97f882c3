import Glibc

/// A prompt on the terminal that does not echo what is typed (for passphrases). Echo and signal
/// keys are turned off while reading, so Ctrl-C arrives as a byte: the terminal is restored before
/// the process exits with 130.
enum TerminalPrompt {
    /// Reads one line from stdin without echo, or nil at end of input.
    static func readHidden(prompt: String) -> [UInt8]? {
        Console.write(2, prompt)
        var saved = termios()
        let haveTerminal = tcgetattr(0, &saved) == 0
        if haveTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ISIG)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        defer {
            if haveTerminal { tcsetattr(0, TCSAFLUSH, &saved) }
            Console.write(2, "\n")
        }
        var line: [UInt8] = []
        while true {
            var byte: UInt8 = 0
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return line.isEmpty ? nil : line }
            switch byte {
            case 0x0A, 0x0D: return line
            case 0x03:  // Ctrl-C: nothing has been written yet, so leave at once.
                if haveTerminal { tcsetattr(0, TCSAFLUSH, &saved) }
                Console.write(2, "\n")
                exit(130)
            case 0x04: return line.isEmpty ? nil : line
            case 0x7F, 0x08: if !line.isEmpty { line.removeLast() }
            default: line.append(byte)
            }
        }
    }
}
