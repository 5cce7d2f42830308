package secretary

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/config"
)

// Bounds on query expansion by the optional LLM: it runs on the answer's
// path, so it gets little time, and what it returns is only ever extra
// search terms.
const (
	llmExpandTimeout  = 2 * time.Second
	llmExpandTokens   = 200
	maxLLMFormsPerKey = 4
	maxLLMFormRunes   = 40
	weightLLM         = 0.8 // a form the LLM proposed: less than the asked word
)

const llmExpandPrompt = "You help search a software engineer's commit history, written in English and Japanese. " +
	"For each word of the question you are given, reply with the other ways it is likely written in commit messages and file names: " +
	"its English or Japanese translation, synonyms, common abbreviations or identifiers. " +
	`Reply with JSON only, one key per given word, at most 4 short strings each, e.g. {"認証": ["auth", "authentication"], "scheduler": ["スケジューラ", "schedule"]}.`

// llmExpand asks the LLM for more forms of the question's words and adds
// them to their concepts. Any failure (off, unreachable, slow, nonsense)
// leaves the question as the glossary expanded it; ok says whether the
// LLM's forms were used.
func (q *parsedQuery) llmExpand(ctx context.Context, llm config.LLM, question string) (bool, error) {
	if !llm.Enabled || llm.Endpoint == "" || len(q.Words) == 0 {
		return false, nil
	}
	words, err := json.Marshal(q.Words)
	if err != nil {
		return false, err
	}
	reply, err := chatComplete(ctx, llm, []chatMessage{
		{Role: "system", Content: llmExpandPrompt},
		{Role: "user", Content: "Question: " + clipRunes(question, 500) + "\nWords: " + string(words)},
	}, llmExpandTokens, llmExpandTimeout)
	if err != nil {
		return false, err
	}
	forms, err := parseExpansion(reply)
	if err != nil {
		return false, err
	}
	added := 0
	for i, w := range q.Words {
		for _, f := range forms[w] {
			if len(q.Terms) >= maxTerms+maxLLMFormsPerKey*2 {
				break
			}
			if f = strings.ToLower(strings.TrimSpace(f)); f == "" || utf8.RuneCountInString(f) > maxLLMFormRunes || contains(q.Concepts[i], f) {
				continue
			}
			if !isCJKWord(f) {
				f = searchStem(f)
			}
			q.Concepts[i] = append(q.Concepts[i], f)
			q.Weights[i] = append(q.Weights[i], weightLLM)
			q.Terms = append(q.Terms, f)
			added++
		}
	}
	return added > 0, nil
}

// parseExpansion reads the LLM's JSON object (tolerating text around it).
func parseExpansion(reply string) (map[string][]string, error) {
	i, j := strings.Index(reply, "{"), strings.LastIndex(reply, "}")
	if i < 0 || j < i {
		return nil, errors.New("LLM expansion: no JSON object in the reply")
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(reply[i:j+1]), &raw); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for k, v := range raw {
		key := strings.ToLower(k)
		list, _ := v.([]any)
		for _, x := range list {
			if s, ok := x.(string); ok && len(out[key]) < maxLLMFormsPerKey {
				out[key] = append(out[key], s)
			}
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
