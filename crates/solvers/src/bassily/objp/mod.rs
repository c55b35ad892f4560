//! `A_ObjP` and `A_ObjP-App` with SVRG (to be filled).
