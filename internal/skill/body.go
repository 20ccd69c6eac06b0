package skill

// ReadBody reads the SKILL.md at path (at most DefaultMaxSize bytes) and
// returns its body: the text after the frontmatter.
func ReadBody(path string) (string, error) {
	doc, err := ReadDocument(path)
	return doc.Body, err
}

// ReadDescription reads the SKILL.md at path (at most DefaultMaxSize
// bytes) and returns the description in its frontmatter.
func ReadDescription(path string) (string, error) {
	doc, err := ReadDocument(path)
	return doc.Description, err
}

// ReadDocument reads and parses the SKILL.md at path (at most
// DefaultMaxSize bytes).
func ReadDocument(path string) (Document, error) {
	f, err := ReadFile(path, 0)
	if err != nil {
		return Document{}, err
	}
	return Parse(path, f.Data)
}
