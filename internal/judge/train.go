package judge

import (
	"fmt"
	"math"
)

// Signs are the directions the features may push the confidence: more of
// the score above the background, of the lead over the others, of shared
// words, of a fitting intent can only raise it; no shared word and a small
// edit only lower it. A fit that wants the other direction for a feature
// (collinear features do that on small data) leaves it out instead: such a
// weight extrapolates wildly on catalogs unlike the training ones.
var Signs = []float64{+1, +1, +1, +1, +1, -1, -1, +1}

// Train fits a judge by L2-regularised logistic regression (Newton's
// method on standardised features; l2 is the penalty on the squared
// weights, not on the bias), each weight of the sign Signs gives it or 0.
func Train(x [][]float64, y []bool, l2 float64) (*Model, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, fmt.Errorf("train: %d samples, %d labels", len(x), len(y))
	}
	d := len(FeatureNames)
	m := &Model{Features: FeatureNames, Mean: make([]float64, d), Std: make([]float64, d), Weights: make([]float64, d)}
	for j := range d {
		var s, ss float64
		for _, row := range x {
			s += row[j]
			ss += row[j] * row[j]
		}
		mean := s / float64(len(x))
		m.Mean[j] = mean
		m.Std[j] = math.Sqrt(max(ss/float64(len(x))-mean*mean, 0))
		if m.Std[j] < 1e-9 {
			m.Std[j] = 1
		}
	}
	z := make([][]float64, len(x)) // standardised, with a leading 1 for the bias
	for i, row := range x {
		z[i] = make([]float64, d+1)
		z[i][0] = 1
		for j := range d {
			z[i][j+1] = (row[j] - m.Mean[j]) / m.Std[j]
		}
	}
	fixed := make([]bool, d+1) // weights held at 0
	for {
		w, err := newton(z, y, l2, fixed)
		if err != nil {
			return nil, err
		}
		worst, by := -1, 0.0
		for j := range d {
			if v := -Signs[j] * w[j+1]; v > by {
				worst, by = j, v
			}
		}
		if worst < 0 {
			m.Bias, m.Weights = w[0], w[1:]
			return m, nil
		}
		fixed[worst+1] = true
	}
}

// newton maximises the penalised likelihood over the weights not fixed
// (at 0); z has a leading 1 for the bias.
func newton(z [][]float64, y []bool, l2 float64, fixed []bool) ([]float64, error) {
	d := len(fixed) - 1
	w := make([]float64, d+1)
	for range 50 {
		grad := make([]float64, d+1)
		hess := make([][]float64, d+1)
		for k := range hess {
			hess[k] = make([]float64, d+1)
		}
		for i, zi := range z {
			p := sigmoid(dot(w, zi))
			t := 0.0
			if y[i] {
				t = 1
			}
			for a := range zi {
				grad[a] += (p - t) * zi[a]
				for b := range zi {
					hess[a][b] += p * (1 - p) * zi[a] * zi[b]
				}
			}
		}
		for a := 1; a <= d; a++ {
			grad[a] += l2 * w[a]
			hess[a][a] += l2
		}
		for a := range fixed {
			if fixed[a] {
				grad[a] = 0
				for b := range hess {
					hess[a][b], hess[b][a] = 0, 0
				}
				hess[a][a] = 1
			}
		}
		step, err := solve(hess, grad)
		if err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		moved := 0.0
		for a := range w {
			w[a] -= step[a]
			moved = max(moved, math.Abs(step[a]))
		}
		if moved < 1e-10 {
			break
		}
	}
	return w, nil
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solve solves a x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if math.Abs(m[p][col]) < 1e-12 {
			return nil, fmt.Errorf("singular system")
		}
		m[col], m[p] = m[p], m[col]
		for r := range n {
			if r == col {
				continue
			}
			f := m[r][col] / m[col][col]
			for c := col; c <= n; c++ {
				m[r][c] -= f * m[col][c]
			}
		}
	}
	x := make([]float64, n)
	for i := range n {
		x[i] = m[i][n] / m[i][i]
	}
	return x, nil
}
