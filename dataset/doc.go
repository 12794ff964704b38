// Package dataset loads and prepares data for the detectors: file readers,
// scaling, stratified splitting, the ADBench evaluation protocol and seeded
// synthetic generators.
//
// A Dataset holds X (n × d, rows are samples), labels Y (1 = anomaly,
// 0 = normal, −1 = unlabeled; nil when the file has none), the sample Shape
// of tensor data (each row is the sample tensor flattened in row-major
// order, so the product of Shape is d), column names, and for class-indexed
// files the raw Class of each row and an optional Split.
//
// # Formats
//
// Load picks the reader from the file extension (case-insensitive):
//
//	.csv                            comma-separated text with a header row
//	.tsv                            tab-separated text with a header row (no quoting)
//	.npy                            one NumPy array: X
//	.npz                            NumPy zip archive: X, optional y and split
//	.libsvm .svm .svmlight .txt     LIBSVM/SVMlight sparse text, into a james-bowman *sparse.CSR
//	.arff                           Weka ARFF, dense or sparse rows
//
// A further .gz extension (.csv.gz, .npy.gz, .arff.gz, .svm.gz, ...) reads
// the file through compress/gzip: the values are parsed as the stream is
// decompressed, never holding the text, and the memory budget holds as it
// does for a plain file (projected from the size the gzip trailer gives,
// and as for a stream once the data run past it: see the memory budget
// below).
// Any other extension is an error listing these. A path that is not a
// regular file (a named pipe, a device) is read as a stream by its
// extension, as ReadStream reads standard input. Read does the same on an
// io.ReaderAt (the embedded data sets use it).
//
// CSV. The first row is a header naming the columns (a first row made of
// numbers only is rejected as a missing header). The label column is the one
// named by Options.Label, else one named "label", else one named "y"
// (names compare without case; a y beside a label column is a feature, and
// so is a y among Options.FeatureNames, the features of the model that
// scores the file);
// without one the data are unlabeled. A column without a name (or with
// the name pandas gives one, "Unnamed: 0") is not read when it is the
// first (the row index pandas writes without index=False; Dataset.Notes
// says so) or the last with empty cells (a trailing comma), and is an
// error anywhere else. The first column named id (in any case) is a row
// identifier: not read, whatever it holds, and Dataset.Notes says so; its
// order alone would rank rows in files sorted by class. Every other column is
// a numeric feature (strconv.ParseFloat syntax). Label cells are 1 (anomaly),
// 0 (normal), −1 or empty (unlabeled), or the words of one normal/anomaly
// pair as ARFF classes have them (no/yes, normal/anomaly, inlier/outlier,
// false/true, n/y, in any case; a single word of either kind alone);
// anything else is an error. Labels that are only 1 and −1 with the 1s
// more than half of the rows follow the one-class sign convention of
// scikit-learn and LIBSVM instead, 1 normal and −1 anomaly, with a note (as
// this package's labels they would make most rows anomalies); so do such a
// y in an .npz. Empty
// feature cells, text, NaN ("nan") and infinities ("inf", "1e999") are
// errors: the package never guesses missing values. Records follow
// encoding/csv's rules (quoted fields, "" for a quote, quoted line breaks,
// \r\n, empty lines skipped, leading space trimmed); the reader is a
// byte-level scanner over a 256 KiB buffer that parses numbers in place,
// with no allocation per row or field, checked against encoding/csv by a
// differential fuzz test. A header read as one column that holds
// semicolons or tabs is an error that says so. Excel's separator line
// ("sep=," as the first line) is skipped when it names the file's
// delimiter and is an error naming the other delimiter otherwise. Every text reader (CSV,
// TSV, LIBSVM, ARFF) first looks at the file's first bytes: UTF-16 or
// UTF-32 text, gzip data under a text extension, a binary format known by
// its magic number (an .xlsx or .xls workbook, .npy, .npz, pickle, HDF5,
// Parquet, bzip2, xz, zstd) and other binary data are each an error that
// names what the file is.
//
// TSV. The CSV rules with a tab for the comma and no quoting (IANA
// text/tab-separated-values): a quote is a character like any other, and
// two tabs in a row are an empty cell.
//
// NPY/NPZ. The arrays are decoded by this package: dtypes bool, int8–int64,
// uint8–uint64, float16, float32, float64 in either byte order, and C or Fortran
// (column-major) order — the ADBench files store X with fortran_order True
// and dtypes <f8, <i2 or |u1 and y as <i8 or <i4; all become float64
// row-major. github.com/sbinet/npyio was checked and is used only in the
// tests, as a cross-check: its *mat.Dense path reads 2-D float64 arrays only
// (int16/uint8 X gives "types don't match", an n × C × T array "shape not
// supported"), and its header parser panics on some malformed headers, which
// a loader fed by users must not do. X with shape (n,) is n × 1; (n, d) is
// n × d; (n, C, T, ...) is n × (C·T·…) with Shape = [C, T, ...]. In an .npz,
// y (shape (n,)) is the label vector when X is 2-D and y's values are in
// {−1, 0, 1}; otherwise — always for N-d X, such as the tensor files whose y
// is a class index — y goes to Class and Y stays nil (see NormalClass);
// Options.Label names an array that holds anomaly labels whatever X's
// shape (a tensor file labelled 1 = anomaly, 0 = normal). An
// int "split" array goes to Split. NaN or infinite values in X are errors.
//
// The array is allocated once, from its header, and read straight into
// place: little-endian float64 in C order is read into the final buffer
// with no conversion at all (stored .npz members included: one copy, from
// the file); other dtypes and byte orders pass through a 256 KiB scratch
// chunk and are converted in bulk; Fortran-order data are transposed a
// panel of columns at a time, in cache-sized tiles. Deflated members are
// inflated chunk by chunk into the same buffer, by
// github.com/klauspost/compress's inflater rather than compress/flate's
// (same format and checks, about twice as fast: NumPy's zlib inflates
// three times faster than compress/flate). Peak memory is about one
// float64 array (the Fortran scratch adds at most max(1 MiB, 1/16 of it)),
// and on Linux a buffer of 4 MiB or more is advised as a transparent
// huge-page candidate (MADV_HUGEPAGE, as NumPy does for its arrays), which
// spares the kernel 511 of every 512 page faults. The CRC-32 of each .npz
// member is checked.
//
// LIBSVM/SVMlight. One sample per line: "label index:value index:value ...",
// indices 1-based and strictly increasing, an optional "qid:N" right after
// the label (ignored), anything after '#' a comment, blank lines skipped.
// X is a *sparse.CSR (github.com/james-bowman/sparse) with as many columns as the largest index; it is never
// densified. Labels follow LIBSVM's one-class convention when every label is
// +1 or −1 and the file has a −1 or writes +1 with its sign: +1 is an inlier
// (→ 0, normal) and −1 an outlier (→ 1, anomaly). Otherwise, when every
// label is 0 or 1, 1 = anomaly and 0 = normal (scikit-learn's
// dump_svmlight_file writes such files). So "+1" lines alone are all normal
// but "1" lines alone are all anomalies. Any other set of integer labels is
// a class index: it goes to Class and Y is nil.
//
// ARFF. "@relation", "@attribute NAME numeric|real|integer", one nominal
// class attribute "@attribute NAME {v1,v2,...}", "@data" and rows, dense
// (comma-separated) or sparse ("{i v, j w, ...}" with 0-based attribute
// indices in increasing order; an omitted value is 0, for the nominal
// class its first value, as Weka reads them); names and values may be
// quoted with ' or "; '%' outside quotes starts a comment. A numeric
// attribute named id is the row identifier of the DAMI outlier benchmark
// files (Campos et al. 2016), not a feature: it is not read, and
// Dataset.Notes says so. The class attribute is the one named by
// Options.Label, else one named class, label, y or outlier, else a last
// nominal attribute. A nominal class whose two values are an obvious
// normal/anomaly pair ({0,1}, {no,yes}, {normal,anomaly|anomalous|outlier|
// abnormal|attack}, {inlier,outlier}, {false,true}, {n,y}, in any order)
// becomes Y; any other nominal class keeps the 0-based index of its value in
// Class. A numeric class attribute must hold 0 or 1; '?' in the class is −1.
// String, date and relational attributes, missing feature values and
// instance weights ("{w}" after a row) are errors.
//
// Options.Shape, for any format, sets the sample shape after checking that
// its product equals the number of features.
//
// # Errors, rows and columns
//
// Every problem with a file is a *Error, whose message is one line starting
// with the path. Row and Col are one-based as a user reads the file:
//
//   - CSV: Row is the line on which the record starts, so the header is
//     row 1 and the first data row is row 2; Col counts every column of the
//     file from 1, the label column included.
//   - .npy/.npz: Row is the sample (the first index of X, from 1) and Col
//     the feature of the flattened row, from 1.
//   - LIBSVM and ARFF: Line is the line of the file, from 1; the message
//     quotes the offending token.
//
// A missing or unreadable file, an unknown extension, ragged rows, text or
// NaN/Inf cells, empty data (no file content, a header only, zero rows or
// zero features), a missing named label column and bad labels are all
// errors. Sizes announced by a header are checked before allocation: an
// .npy shape must hold at most MaxElements values and fit in the bytes the
// file (or the zip member, itself no larger than the archive) can hold. The
// array is allocated from the header only when those bytes are really
// there — an .npy file or a stored .npz member — or, for a deflated member,
// when the header promises at most 16 times the member's compressed size
// (or 64 MiB); beyond that the data are read into a growing buffer first.
// So a corrupt file cannot make a loader allocate without bound. A real
// file can still be larger than the memory at hand: Options.MaxBytes
// bounds what its values may take, and a loader refuses a file past it
// with a *MemoryError before allocating the buffer that would pass it
// (from the .npy header; for CSV from the rows read so far projected over
// the file's size; for LIBSVM and ARFF as the values grow). Data of
// unknown size — a stream, and gzip data once they run past the size
// their trailer gives (it is the size modulo 2³², and a decompression
// bomb's says anything) — are collected in blocks, each at most 8 MiB and
// at most half of what the blocks before it hold, and copied into one
// array at the end; before each block the blocks, the new one and that
// final copy are checked against the budget. So an endless stream or a
// bomb is refused with a *MemoryError that names the rows and the bytes
// read, before an allocation would pass the budget, and no buffer is
// ever grown by doubling (the collector cannot reuse the memory of the
// smaller buffers a doubling leaves behind: under an address-space limit
// the process died in Go's fatal "out of memory"). The command line sets
// MaxBytes to its memory budget.
//
// # Files larger than memory: Open
//
// Load holds a file's values whole. Open returns a File instead, read in
// chunks of rows (OpenStream for standard input; a named pipe given to
// Open is read the same way): File.Scan calls a function with rows lo,
// lo+1, … as a *mat.Dense or a *sparse.CSR that is valid only during the
// call and must not be modified, so a pass over a file of any size holds
// a chunk, not the file. A File has the methods of detector.Source, and
// a RowReader (a File that also reads rows by index) those of
// method.RowReader — this package does not import detector, Go's
// interfaces match by their methods — so the detectors fit from a File
// (in passes, by index or by sample as the method needs) and score it
// chunk by chunk. Each format is read by the one parser Load uses: the
// same values bit for bit, the same errors (file, row, column, line) and
// notes, met when a pass reaches them; Options.Shape is checked at Open,
// against the header's columns. (Of a file with two faults, a File may
// name the other one: Open checks Options.Shape and an .npz's labels
// before any row is read, where Load reads the rows first.)
//
//	format              rows known          by index (ReadRows)   passes
//	.npy                at Open             yes, ReadAt           any, on a map
//	.npz, X stored      at Open             yes, ReadAt           any, on a map
//	.npz, X deflated    at Open             no                    any: the member inflated again
//	CSV, TSV, ARFF      after a pass        no                    any: the file reopened, its header read again
//	LIBSVM              at Open (see below) no                    any
//	gzip (.csv.gz, …)   as the format       no                    any: decompressed again
//	a stream            as the format       no                    one: a second Scan returns ErrOnePass
//
// NPY and NPZ. The header is parsed once. Native-order float64 data in C
// order, 8-byte aligned in a regular file (what numpy writes to an .npy
// file), are mapped read-only: a chunk is a matrix on the mapping itself,
// checked for NaN and ±Inf, and no byte is copied (a pass over 160 MB in
// the page cache: about 10 ms, against 42 ms read into a buffer). The
// pages a pass has read are released, and the next ones asked for, 64 MiB
// at a time, so a pass over an 8 GB file holds about 64 MiB of it
// resident, not 8 GB. A file truncated while it is mapped is an error of
// the pass that meets the lost pages, in its own goroutine (a detector that hands
// unscaled chunks to goroutines of its own would crash there, as any
// reader of a mapped file would). Other data, or where the map fails, are
// read with ReadAt and converted by the decoder Load uses, from any dtype,
// byte order and order it reads, into one float64 buffer reused by every
// chunk (little-endian float64 in C order is read straight into it); in
// Fortran order, the chunk's run of each column, a panel of columns at a
// time, transposed into the rows. ReadRows reads with ReadAt, mapped or
// not (faulting in a page for each of a sample's scattered rows cost
// more than a read of it): in C
// order, a run of nearby rows at a time (through gaps of up to 16 KiB),
// in the order of the file whatever the order asked; in Fortran order, a
// column at a time, each in runs of nearby rows, so a large sample reads
// the columns through and a few rows cost a read per column each. A
// deflated .npz member, and a gzip .npy, are read in order from the start
// of each pass; their rows are in Fortran order only as a whole, so such
// an array (and a Fortran-order .npy on a stream) is read into memory as
// Load reads it, under Options.MaxBytes, and the File reads from there (a
// RowReader). NaN and infinite values are errors when a chunk, or the
// rows ReadRows reads, hold one. The CRC-32 of a deflated member is
// checked at the end of each pass; a stored member's (and the data
// descriptor after it) is checked by Load, which reads it whole, not by a
// File, which reads by index. The labels (y, or the array
// Options.Label names) are read through once at Open, to decide what they
// are as Load decides, and then beside X in the chunks of each
// ScanLabeled. The split array is read by Load only.
//
// LIBSVM. A File must know its width before the first chunk, where Load
// takes the highest index of the whole file. With Options.Features set
// (the width of the model that scores the file) the rows are read that
// wide, with no first pass, and an index past it is an error at its line
// (a *WidthError). Otherwise Open reads every line of the file once, its
// labels and indices but not its values, for the width, the number of
// rows and what the labels are; should a line be wrong, Open returns the
// error Load returns. A stream cannot be read twice: without
// Options.Features it is read into memory, as ReadStream reads it, under
// Options.MaxBytes (a RowReader). A sparse chunk also ends before a row
// that would take it past 2²⁰ stored values, so its memory is bounded
// whatever the width of the rows.
//
// Labels. ScanLabeled hands over the labels of each chunk's rows as the
// file writes them (CSV words as the 0 or 1 they mean; an ARFF class of
// a normal/anomaly pair as 0 or 1, any other as its index), and
// File.Labels says how to read them (see Labels). Where a format decides
// its labels from the whole column — CSV labels of 1 and −1 only, by the
// one-class convention when the 1s are the majority; LIBSVM labels, a
// class index unless they are 0/1 or ±1 — a File that has not read every
// row cannot know: its Labels is not Final, and the note of the
// one-class convention is missing from Notes, until a pass has reached
// the end (for a LIBSVM file, the width pass at Open does). A caller that
// needs the labels of every row keeps them, one a row, and reads them
// with Labels.Resolve once the pass has ended; a label word that pairs
// with no other, or words mixed with numbers, are an error at the end of
// the pass, as in Load. .npz and ARFF labels are known from Open.
//
// Rows and progress. Dims reports the rows of a text file as −1 until a
// pass has read it to its end (a LIBSVM file's from Open, but for one
// read with Options.Features); its columns from Open. Options.Progress,
// when set, is called after each chunk and at the end of a pass, from
// the goroutine that reads: for text, the bytes of the file read so far
// (of a gzip file, the compressed bytes) of its size; for .npy and .npz,
// the bytes of the array; the total is −1 on a stream. A File serves one
// goroutine: a Scan during another is an error; ReadRows may run beside
// a Scan and other ReadRows. A dense chunk holds at most the rows Scan is
// given, and for a text file of unknown length at most 64 MiB of values
// (a chunk may hold fewer rows than asked); it comes from Options.Buffer
// when that holds it.
//
// # Preparing data
//
// The scalers (min-max, standard, robust, max-abs) live in package scale.
//
// StratifiedSplit and StratifiedSubsample keep label proportions with the
// rounding of scikit-learn's train_test_split(stratify=y) (the same
// per-class counts up to random tie-breaking), drawing from any
// math/rand/v2 Source; Subset takes rows. SplitADBench is the protocol of
// the reference runs: a stratified subsample of 10,000 rows when
// n > 10,000, a 70/30 stratified split, and min-max scaling fit on the
// train part; its draws replay scikit-learn's exactly for random_state =
// seed (SklearnStratifiedSplit), so the rows are those of the reference
// figures.
//
// GaussianMixture and Banana generate labelled data. Every random choice
// takes a math/rand/v2 Source, so a seed reproduces a result exactly.
package dataset
