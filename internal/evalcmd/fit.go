package evalcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skill-inject/ski/internal/calib"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/eval"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/judge"
)

// crossValidate fits the gate values around the model's own on k-1 folds
// and scores the fold left out, for every fold.
func crossValidate(rows []eval.Labelled, base gate.Settings, k int, lim calib.Limits, model string, skills int, tokens eval.Tokens) (eval.CVReport, error) {
	inject := base.InjectSimilarity
	f := calib.Fitter{
		Base:    base,
		Inject:  calib.Range(inject-0.15, inject+0.10, 0.005),
		Suggest: calib.Range(inject-0.20, inject, 0.005),
		Margin:  []float64{0.02, 0.04, 0.06, 0.08, 0.12},
		Set:     calib.Scores,
		Limits:  lim,
	}
	judged := false
	for _, r := range rows {
		for _, c := range r.Cands {
			judged = judged || c.Confidence != nil
		}
	}
	if judged {
		f.Inject, f.Suggest, f.Margin, f.Set = calib.Range(0.02, 0.98, 0.01), calib.Range(0.02, 0.98, 0.01), []float64{0}, calib.Confidences
	}
	oof, in, err := eval.CrossValidate(rows, f.Decider(), k, tokens)
	if err != nil {
		return eval.CVReport{}, err
	}
	all, err := f.Fit(rows)
	if err != nil {
		return eval.CVReport{}, err
	}
	return eval.CVReport{
		Folds:     k,
		OutOfFold: eval.NewReport(model, skills, oof),
		InSample:  eval.NewReport(model, skills, in),
		Fitted:    fitted(all.Settings, judged),
	}, nil
}

// writeJudge fits the judge on the rows' judged candidates (every row but
// mentions: a candidate is right when some group expects it) and writes it
// to o.TrainJudge.
func writeJudge(o Options, rows []eval.Labelled) error {
	x, y := eval.JudgeSamples(rows)
	if o.JudgeFeatures != "" {
		keep := strings.Split(o.JudgeFeatures, ",")
		for _, k := range keep {
			if !slices.Contains(judge.FeatureNames, k) {
				return cli.Usagef("--judge-features: %q: want some of %s", k, strings.Join(judge.FeatureNames, ","))
			}
		}
		for _, row := range x {
			for j, name := range judge.FeatureNames {
				if !slices.Contains(keep, name) {
					row[j] = 0 // constant: its weight is fitted to 0
				}
			}
		}
	}
	m, err := judge.Train(x, y, 1)
	if err != nil {
		return err
	}
	m.Model = o.Model
	m.TrainedOn = fmt.Sprintf("%s: %d prompts, %d candidates", filepath.ToSlash(o.TSV), len(rows), len(x))
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(o.TrainJudge, append(data, '\n'), 0o644)
}

// fitted says what a fit chose.
func fitted(s gate.Settings, judged bool) string {
	if judged {
		return fmt.Sprintf("inject_confidence %.2f, suggest_confidence %.2f", s.Judged.InjectConfidence, s.Judged.SuggestConfidence)
	}
	return fmt.Sprintf("inject_similarity %.3f, min_similarity %.3f, score_margin %.3f", s.InjectSimilarity, s.MinSimilarity, s.ScoreMargin)
}
