int helper (void);
