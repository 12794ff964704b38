package detector

// MaxColumnsJSON is maxColumnsJSON, for the external tests.
const MaxColumnsJSON = maxColumnsJSON
