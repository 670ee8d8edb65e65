int stray (void);
