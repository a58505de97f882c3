/// The mask-selection penalty of ISO/IEC 18004 §7.8.3: lower is better.
/// N1: runs of five or more same-coloured modules in a row or column (3 + run − 5 each);
/// N2: 2×2 blocks of one colour (3 each); N3: finder-like 1:1:3:1:1 patterns with four light
/// modules on one side (40 each); N4: 10 per 5 % the dark share strays from 50 %.
enum QRPenalty {
    static let n1 = 3, n2 = 3, n3 = 40, n4 = 10

    /// The total penalty of `matrix`.
    static func score(_ matrix: QRMatrix) -> Int {
        let size = matrix.size
        var total = 0
        var darkCount = 0
        // Rows and columns: the same scans with the axes swapped.
        for transpose in [false, true] {
            for a in 0..<size {
                var line = [Bool](repeating: false, count: size)
                for b in 0..<size { line[b] = transpose ? matrix[a, b] : matrix[b, a] }
                total += runPenalty(line) + finderLikePenalty(line)
                if !transpose { darkCount += line.reduce(0) { $0 + ($1 ? 1 : 0) } }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let c = matrix[x, y]
                if c == matrix[x + 1, y] && c == matrix[x, y + 1] && c == matrix[x + 1, y + 1] { total += n2 }
            }
        }
        let modules = size * size
        let percentDark = darkCount * 100 / modules
        // Steps of 5 % away from 50 %, counted on the closer side (floor of the distance).
        total += abs(percentDark - 50) / 5 * n4
        return total
    }

    /// N1 for one row or column.
    static func runPenalty(_ line: [Bool]) -> Int {
        var penalty = 0
        var runLength = 1
        for i in 1..<line.count {
            if line[i] == line[i - 1] {
                runLength += 1
            } else {
                if runLength >= 5 { penalty += n1 + runLength - 5 }
                runLength = 1
            }
        }
        if runLength >= 5 { penalty += n1 + runLength - 5 }
        return penalty
    }

    /// N3 for one row or column: dark-light-dark-dark-dark-light-dark with four light modules
    /// before or after it. Modules outside the symbol count as light (the quiet zone).
    static func finderLikePenalty(_ line: [Bool]) -> Int {
        let core: [Bool] = [true, false, true, true, true, false, true]
        func module(_ i: Int) -> Bool { i >= 0 && i < line.count ? line[i] : false }
        var penalty = 0
        for start in 0...(line.count - 7) {
            guard (0..<7).allSatisfy({ line[start + $0] == core[$0] }) else { continue }
            let lightBefore = (1...4).allSatisfy { !module(start - $0) }
            let lightAfter = (1...4).allSatisfy { !module(start + 6 + $0) }
            if lightBefore { penalty += n3 }
            if lightAfter { penalty += n3 }
        }
        return penalty
    }
}
