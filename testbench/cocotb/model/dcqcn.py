"""DCQCN reaction point (Zhu et al., SIGCOMM 2015, Algorithm 1 / docs/ethernet.md) as an event model in
the NIC's fixed-point units: rates are bytes per cycle x 256 (16 bits), alpha in 1/1024 (1024 = 1),
g = 1/256 (4 in alpha's units).

On a CNP: RT = RC; RC = RC x (1 - alpha/2) = RC - floor(RC x alpha / 2048), not below the minimum;
alpha = (1 - g) alpha + g, with (1 - g) alpha = alpha - floor(alpha / 256); the increase stages restart.
A rate increase stage (timer or byte counter): while both stage counts are at most F, fast recovery
(RC = (RT + RC) / 2); when one passed F, additive increase (RT += R_AI first); when both passed F, hyper
increase (RT += R_HAI); RT stays at or below the line rate.
"""

G_Q10 = 4  # g = 1/256 in 1/1024 units


class Dcqcn:
    def __init__(self, line=2048, min_rate=16, ai=20, hai=200, f=5):
        self.line, self.min, self.ai, self.hai, self.f = line, min_rate, ai, hai, f
        self.rc = self.rt = line
        self.alpha = 1024
        self.t_stage = self.b_stage = 0

    def cnp(self):
        self.rt = self.rc
        cut = (self.rc * self.alpha) >> 11
        self.rc = max(self.rc - cut, self.min)
        self.alpha = self.alpha - (self.alpha >> 8) + G_Q10
        self.t_stage = self.b_stage = 0

    def alpha_timer(self):
        self.alpha -= self.alpha >> 8

    def stage(self, timer=True):
        """One rate increase stage ended by the rate timer (timer=True) or the byte counter."""
        if self.t_stage > self.f and self.b_stage > self.f:
            self.rt += self.hai
        elif self.t_stage > self.f or self.b_stage > self.f:
            self.rt += self.ai
        self.rt = min(self.rt, self.line)
        self.rc = (self.rt + self.rc) >> 1
        if timer:
            self.t_stage += 1
        else:
            self.b_stage += 1
