int engine_private (void);
