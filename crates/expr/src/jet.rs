//! Second-order forward-mode numbers ("jets"): a value with its first and
//! second derivative along one seeded direction. Evaluating an expression on
//! jets gives exact derivatives by the chain rule, f(x)'' = f''·x'² + f'·x''.

use std::ops::{Add, Div, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Jet {
    pub v: f64,
    pub d: f64,
    pub dd: f64,
}

impl Jet {
    pub fn constant(v: f64) -> Jet {
        Jet { v, d: 0.0, dd: 0.0 }
    }
    pub fn variable(v: f64) -> Jet {
        Jet { v, d: 1.0, dd: 0.0 }
    }
    pub fn is_constant(self) -> bool {
        self.d == 0.0 && self.dd == 0.0
    }
    /// Apply a scalar function with value `f`, slope `f1` and curvature `f2`
    /// at `self.v`. Terms whose seed component is zero are skipped so that an
    /// infinite slope at a point the direction does not move through (e.g.
    /// SQRT at 0 of a constant) does not turn into NaN.
    pub fn chain(self, f: f64, f1: f64, f2: f64) -> Jet {
        let d = if self.d == 0.0 { 0.0 } else { f1 * self.d };
        let dd = (if self.d == 0.0 {
            0.0
        } else {
            f2 * self.d * self.d
        }) + (if self.dd == 0.0 { 0.0 } else { f1 * self.dd });
        Jet { v: f, d, dd }
    }
    pub fn scale(self, k: f64) -> Jet {
        Jet {
            v: self.v * k,
            d: self.d * k,
            dd: self.dd * k,
        }
    }
    pub fn sin(self) -> Jet {
        let (s, c) = self.v.sin_cos();
        self.chain(s, c, -s)
    }
    pub fn cos(self) -> Jet {
        let (s, c) = self.v.sin_cos();
        self.chain(c, -s, -c)
    }
    pub fn tan(self) -> Jet {
        let t = self.v.tan();
        let sec2 = 1.0 + t * t;
        self.chain(t, sec2, 2.0 * t * sec2)
    }
    pub fn asin(self) -> Jet {
        let x = self.v;
        let r = 1.0 - x * x;
        self.chain(x.asin(), 1.0 / r.sqrt(), x / (r * r.sqrt()))
    }
    pub fn acos(self) -> Jet {
        let x = self.v;
        let r = 1.0 - x * x;
        self.chain(x.acos(), -1.0 / r.sqrt(), -x / (r * r.sqrt()))
    }
    pub fn atan(self) -> Jet {
        let x = self.v;
        let r = 1.0 + x * x;
        self.chain(x.atan(), 1.0 / r, -2.0 * x / (r * r))
    }
    pub fn sinh(self) -> Jet {
        let (s, c) = (self.v.sinh(), self.v.cosh());
        self.chain(s, c, s)
    }
    pub fn cosh(self) -> Jet {
        let (s, c) = (self.v.sinh(), self.v.cosh());
        self.chain(c, s, c)
    }
    pub fn tanh(self) -> Jet {
        let t = self.v.tanh();
        let s = 1.0 - t * t;
        self.chain(t, s, -2.0 * t * s)
    }
    pub fn exp(self) -> Jet {
        let e = self.v.exp();
        self.chain(e, e, e)
    }
    /// Natural logarithm; the caller checks the domain.
    pub fn ln(self) -> Jet {
        let x = self.v;
        self.chain(x.ln(), 1.0 / x, -1.0 / (x * x))
    }
    /// Square root; the caller checks the domain.
    pub fn sqrt(self) -> Jet {
        let s = self.v.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.v))
    }
    /// x**p for a constant exponent p.
    pub fn powf(self, p: f64) -> Jet {
        let x = self.v;
        let f = x.powf(p);
        let f1 = if p == 0.0 { 0.0 } else { p * x.powf(p - 1.0) };
        let f2 = if p == 0.0 || p == 1.0 {
            0.0
        } else {
            p * (p - 1.0) * x.powf(p - 2.0)
        };
        self.chain(f, f1, f2)
    }
    /// Piecewise-constant functions (AINT, ANINT): derivatives vanish.
    pub fn flat(f: f64) -> Jet {
        Jet::constant(f)
    }
}

impl Add for Jet {
    type Output = Jet;
    fn add(self, o: Jet) -> Jet {
        Jet {
            v: self.v + o.v,
            d: self.d + o.d,
            dd: self.dd + o.dd,
        }
    }
}
impl Sub for Jet {
    type Output = Jet;
    fn sub(self, o: Jet) -> Jet {
        Jet {
            v: self.v - o.v,
            d: self.d - o.d,
            dd: self.dd - o.dd,
        }
    }
}
impl Neg for Jet {
    type Output = Jet;
    fn neg(self) -> Jet {
        Jet {
            v: -self.v,
            d: -self.d,
            dd: -self.dd,
        }
    }
}
impl Mul for Jet {
    type Output = Jet;
    fn mul(self, o: Jet) -> Jet {
        Jet {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
            dd: self.dd * o.v + 2.0 * self.d * o.d + self.v * o.dd,
        }
    }
}
impl Div for Jet {
    type Output = Jet;
    /// Quotient; the caller rejects a zero divisor.
    fn div(self, o: Jet) -> Jet {
        let q = self.v / o.v;
        let d = (self.d - q * o.d) / o.v;
        let dd = (self.dd - 2.0 * d * o.d - q * o.dd) / o.v;
        Jet { v: q, d, dd }
    }
}
impl Add<f64> for Jet {
    type Output = Jet;
    fn add(self, o: f64) -> Jet {
        Jet {
            v: self.v + o,
            ..self
        }
    }
}
impl Sub<f64> for Jet {
    type Output = Jet;
    fn sub(self, o: f64) -> Jet {
        Jet {
            v: self.v - o,
            ..self
        }
    }
}
impl Mul<f64> for Jet {
    type Output = Jet;
    fn mul(self, o: f64) -> Jet {
        self.scale(o)
    }
}
