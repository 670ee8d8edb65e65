int engine (void);
