"""pullback-calc: the differential-form pullback calculus of Mak & Ong, by reduction."""
